"""`gpu-wizard install-torch`: install the build `torch-command` chooses, into the Python that
will use it, after confirmation; then check that it works, GPU test included.

Exit 0: installed and verified (or a --dry-run). 1: nothing fits, pip failed, or the new torch
does not work yet (what still fails is said). 2: bad arguments, no confirmation, or no terminal to
ask and no --yes. Nothing is changed before the confirmation.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from wizard.commands.torch_command import live_facts
from wizard.probe.facts import TorchInfo
from wizard.probe.trust import environment_of
from wizard.text.i18n import language_from_env, t
from wizard.text.output import safe, wrap

HELP = "install the PyTorch build that fits this machine into your Python, then check it works"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--python", metavar="PATH",
                        help="the interpreter to install into (default: found as check finds it)")
    parser.add_argument("--no-discover", action="store_true",
                        help="run no Python to look for PyTorch but --python (or gpu-wizard's own)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--index-url", metavar="URL",
                       help="a mirror of PyTorch's wheel index instead of download.pytorch.org/whl")
    where.add_argument("--mirror", metavar="NAME",
                       help="a named mirror of PyTorch's wheel index, e.g. sjtu (an unknown name lists them)")
    parser.add_argument("--dry-run", action="store_true", help="show what would run; change nothing")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--no-gpu-test", action="store_true", help="verify without the tiny GPU computation")
    parser.add_argument("--lang", choices=("en", "zh"), help="language (default: from the locale)")


def run(args: argparse.Namespace) -> int:
    # `--help` imports every command's module: the installer, the build choice and the torch
    # sentences cost +80-130 ms there at the top (measured 2026-12-04).
    from wizard.pytorch import installer
    from wizard.pytorch.choose import choose_torch
    from wizard.pytorch.wording import torch_message

    lang = args.lang or language_from_env()
    say = _Say(lang)

    mirror = None
    if args.mirror:
        mirrors = installer.load_mirrors()  # damaged: wizard.cli names the file
        mirror = mirrors.get(args.mirror.strip().lower())
        if mirror is None:
            return say.bad("mirror-unknown", name=args.mirror, names=", ".join(mirrors))
    if args.index_url and not args.index_url.startswith(("https://", "http://", "file:")):
        return say.bad("bad-index-url", url=args.index_url)

    # In a terminal the user is asked before a folder's own environment runs (it runs the moment
    # its version is read); with --yes, or no terminal, only one allowed before is used.
    asking = not args.yes and sys.stdin.isatty() and sys.stdout.isatty()
    facts, machine, chosen, static = live_facts(args.python, lang, for_install=True, no_discover=args.no_discover,
                                                consent=say.may_run if asking else None)
    facts.pop("_pip", None)  # the plan runs the interpreter's own pip, by path
    ran = facts.pop("_ran", None)
    choice = choose_torch(**facts, lang=lang)
    try:
        plan = installer.make_plan(chosen.path, chosen.source, choice,
                                   torch_before=static.version if static.installed else None,
                                   companions=static.companions, prefix=static.prefix, index_url=args.index_url,
                                   mirror=mirror, uv=installer.find_uv())
    except installer.PlanError as exc:
        if exc.key == "nothing-fits":
            say.line(t("torch.install.nothing-fits", lang, reason=choice.reason))
            return 1
        return say.bad(exc.key, **exc.values)

    say.plan(plan, own=installer.interpreter_is_own(plan.python), mirror=mirror, ran=ran)
    if args.dry_run:
        say.line(t("torch.install.dry-run", lang))
        return 0
    if not args.yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return say.bad("no-terminal")
        if not say.confirm():
            say.line(t("torch.install.declined", lang))
            return 2

    try:
        status = installer.run_install(plan)
    except KeyboardInterrupt:
        say.err(t("torch.install.interrupted", lang, command=plan.shown))
        raise
    if status != 0:
        say.line(t("torch.install.pip-failed", lang, tool=plan.via, code=status))
        if mirror is None and not args.index_url and plan.choice.index_url:
            say.line(t("torch.install.mirror-hint", lang, names=", ".join(installer.load_mirrors())))
        return 1

    say.line(t("torch.install.verifying", lang))
    result, info, errors = installer.verify(plan, machine, lang, gpu_test=not args.no_gpu_test)
    if result == "gpu-ok":
        devices = ", ".join(f"{test.device} ({test.name})" if test.name else test.device for test in info.gpu_tests)
        say.line(t("torch.install.verified-gpu", lang, version=info.version, build=info.build, devices=devices))
        return 0
    if result == "cpu-ok":
        say.line(t("torch.install.verified-cpu", lang, version=info.version))
        return 0
    say.line(t("torch.install.still-failing", lang, version=info.version or t("torch.findings.version-unknown", lang),
               build=info.build or "", wanted=plan.choice.variant))
    for finding in errors:
        say.line(f"- {finding.title}: {finding.fix}" if finding.fix else f"- {finding.title}", 2)
    if not errors:
        say.line(f"- {torch_message(info, lang)}", 2)
    return 1


class _Say:
    """Everything install-torch prints: translated, made safe for this terminal."""

    def __init__(self, lang: str):
        self.lang = lang
        self.width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns)) - 2

    def line(self, text: str = "", indent: int = 0) -> None:
        lines = wrap(text, self.width, indent, 2) if text else [""]
        print(safe("\n".join(lines)), flush=True)

    def err(self, text: str) -> None:
        print(safe(text, sys.stderr), file=sys.stderr, flush=True)

    def bad(self, key: str, **values) -> int:
        self.err(t(f"torch.install.{key}", self.lang, **values))
        return 2

    def plan(self, plan, own: bool, mirror, ran=None) -> None:
        from wizard.pytorch.wording import interpreter_line, not_run_lines  # +35-45 ms on --help: see run

        self.line(t("torch.install.heading", self.lang))
        into = TorchInfo(status="ok", interpreter=plan.python, interpreter_source=plan.source)
        self.line(interpreter_line(into, self.lang, key="torch.install.into"), 2)
        for text in not_run_lines(ran, self.lang) if ran is not None else ():
            self.line(text, 4 if text.startswith("- ") else 2)
        self.line(t("torch.install.now", self.lang, version=plan.torch_before) if plan.torch_before
                  else t("torch.install.now-none", self.lang), 2)
        if own:
            self.line(t("torch.install.own-python", self.lang), 2)
        self.line(t("torch.install.choice", self.lang, reason=plan.choice.reason), 2)
        if plan.companions:
            self.line(t("torch.install.companions", self.lang, names=" ".join(plan.companions)), 2)
        if mirror is not None:
            title = mirror.title_zh if self.lang == "zh" else mirror.title
            self.line(t("torch.install.mirror", self.lang, title=title), 2)
        if plan.download_mb:
            self.line(t("torch.install.download", self.lang, mb=f"{plan.download_mb:,.0f}"), 2)
        self.line()
        self.line(t("torch.install.command", self.lang))

        print(safe("    " + plan.shown), flush=True)  # never wrapped: it must stay copy-pasteable
        self.line()

    def may_run(self, candidate) -> bool:
        """May this folder's own environment run? Asked once, before it runs; "a" remembers yes."""
        from wizard.user_settings import remember_saying  # +3.5 ms on --help at the top (2026-12-04)

        env = environment_of(candidate.path) or candidate.path
        self.line(t("ui.run-python.text", self.lang))
        print(safe("    " + env), flush=True)
        self.line(t("ui.run-python.question", self.lang))
        try:
            answer = input(t("torch.install.may-run", self.lang)).strip().lower()
        except EOFError:
            return False
        if answer in ("a", "always", "总是"):
            remembered, said = remember_saying(env, True, self.lang)
            if not remembered:
                self.err(said)
            return True
        return answer in ("y", "yes", "是", "好")

    def confirm(self) -> bool:
        try:
            answer = input(t("torch.install.confirm", self.lang))
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes", "是", "好")
