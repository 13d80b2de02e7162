"""Command-line entry: `gpu-wizard` (the wizard), `check`, `torch-command`, `report ...`.

Each subcommand lives in wizard/commands/<name>.py with `add_arguments(parser)` and
`run(args) -> int`; modules keep heavy imports inside `run` so `--help` and `check` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from wizard import __version__, signals
from wizard.knowledge.damaged import DAMAGED, ContentError

# The content reader and the strings (tomllib, hashlib, unicodedata: ~20 ms, -X importtime
# 2026-12-04) load when a function below needs them: at the top they would delay the NVML
# child that `check` starts first, and `check --json --no-torch` waits for that child.

# name → module; the order is the order of `--help`.
COMMANDS = {
    "check": "wizard.commands.check",
    "torch-command": "wizard.commands.torch_command",
    "install-torch": "wizard.commands.install_torch",
    "report": "wizard.commands.report_cmd",
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def commands_in(argv: list[str]) -> list[str]:
    """The commands whose modules a command line needs: those it names (a value that happens
    to be a command's name costs only that module's import), or all of them for the list that
    `gpu-wizard --help` prints. `gpu-wizard check` must not pay for `report` and `install-torch`."""
    named = [name for name in COMMANDS if name in argv]
    asks_help = any(arg in ("-h", "--help") for arg in argv)
    return list(COMMANDS) if asks_help and not named else named


# The wizard's options as the top-level parser stores them: apart from a command's own options of
# the same name (a command's default would overwrite a value given before the command), and
# merged after parsing (_merge_top_level).
_TOP = "top_"


def build_parser(load: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; `load`: the commands whose options are read (default: all).
    The others are listed by name only, and are never what a command line using them parses."""
    parser = _Parser(
        prog="gpu-wizard",
        description="Does this computer have a GPU PyTorch can use? What should I install or buy?",
    )
    parser.add_argument("--version", action="version", version=f"gpu-wizard {__version__}")
    add_wizard_arguments(parser, _TOP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        if load is not None and name not in load:
            sub.add_parser(name)
            continue
        module = importlib.import_module(module_name)
        sub_parser = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line as the commands and the wizard read it."""
    return _merge_top_level(build_parser(commands_in(argv)).parse_args(argv))


def _merge_top_level(args: argparse.Namespace) -> argparse.Namespace:
    """`gpu-wizard --lang zh check` means `gpu-wizard check --lang zh`: a wizard option given
    before the command counts unless the command's own was given (None and False: not given)."""
    for top in [name for name in vars(args) if name.startswith(_TOP)]:
        name, value = top[len(_TOP):], getattr(args, top)
        delattr(args, top)
        if getattr(args, name, None) in (None, False):
            setattr(args, name, value)
    return args


def add_wizard_arguments(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """The wizard's own options; `prefix` goes before each one's name in the parsed arguments."""
    def option(flag: str, **kwargs: Any) -> None:
        parser.add_argument(flag, dest=prefix + flag.lstrip("-").replace("-", "_"), **kwargs)

    option("--lang", choices=("en", "zh"), help="language (default: from the locale; zh* → zh)")
    option("--python", metavar="PATH",
           help="the interpreter whose torch is checked (default: found where your PyTorch is)")
    option("--no-gpu-test", action="store_true", help="do not run a tiny kernel on each visible GPU")
    option("--no-discover", action="store_true",
           help="run no Python to look for PyTorch but --python (or gpu-wizard's own)")
    option("--machine", metavar="FILE", help="use a recorded machine instead of probing")
    option("--answers", metavar="FILE", help="headless run: answers from FILE")
    option("--report", metavar="PATH", help="where the report is saved")
    option("--no-redact", action="store_true", help="keep host name, user name and GPU UUIDs in the report")


def run(argv: list[str] | None = None) -> int:
    """The `gpu-wizard` command: `main`, then, after a command, an exit without Python's
    teardown (end_now). Measured 2026-12-04 with `python -m benchmarks check --runs 9`: without
    it `check --json --no-torch` took 2.50× the import floor instead of 2.17×, at the edge of its
    2.5× budget. Not in `main`, which the tests call many times in one process."""
    status, command = _main(argv)
    if command:
        end_now(status)
    return status


def end_now(status: int) -> None:
    """End the process: children of ours still running ended and our temporary folder removed
    (what wizard.signals.at_end holds, which atexit would run), the output flushed, and then no
    more. Python's own exit would go on to tear every module down, one object at a time, for
    memory the OS takes back anyway."""
    signals.end_actions()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:   # pythonw: no console
            continue
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):   # a reader that went away (`| head`), a closed stream
            pass
        except OSError as exc:
            # A full disk under `> roster.csv`: the file is incomplete, and saying so is the
            # one thing left to do. 120: what Python's own exit returns for the same failure.
            try:
                os.write(2, f"gpu-wizard: could not write the output: {exc.strerror or exc}\n".encode())
            except OSError:
                pass
            status = 120
    os._exit(status)


def main(argv: list[str] | None = None) -> int:
    return _main(argv)[0]


def _main(argv: list[str] | None) -> tuple[int, bool]:
    """main's exit status, and whether a command (not the wizard) was what ran."""
    signals.install()
    DAMAGED.clear()  # what this run finds; main() runs more than once only inside tests
    args = None
    command = False
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
        bad_python = _check_python(args)
        if bad_python is not None:
            _say(bad_python)
            return 2, False
        module = getattr(args, "_module", None)
        if module is not None:
            command = True
            status = module.run(args)
        else:
            # The command with no name loads like the named ones, only when it runs: its
            # headless run brings the report builder, which `check` would pay for otherwise.
            from wizard.commands import wizard_main

            status = wizard_main.run(args)
    except KeyboardInterrupt as exc:  # Ctrl+C, SIGTERM, SIGHUP (wizard.signals)
        # Only the wizard and the headless run write reports; the others just stop.
        writes = args is not None and getattr(args, "_module", None) is None
        return _interrupted(exc, getattr(args, "lang", None), writes), command
    except BrokenPipeError:
        return 0, command
    except ContentError as exc:  # a data file this command cannot do without
        _say(_DAMAGED_TEXT[_lang(args)]["fatal"].format(error=exc))
        return 2, command
    _warn_damaged(_lang(args))
    return status, command


def _check_python(args: argparse.Namespace) -> str | None:
    """`--python PATH` must name a Python before anything runs; the sentence saying why not."""
    path = getattr(args, "python", None)
    if not path:
        return None
    # Only with --python: discovery and the machine's records cost `report summarize` ~35 ms
    # (-X importtime, 2026-12-04), a sixth of summarizing 200 reports.
    from wizard.probe.discover import PythonArgError, check_python_arg
    from wizard.text.i18n import t  # lazy: see the top

    try:
        args.python = check_python_arg(path)
    except PythonArgError as exc:
        return t(f"torch.python-arg.{exc.key}", _lang(args), path=path, detail=exc.detail or "")
    return None


# Not in content/: these sentences report that content/ is damaged.
_DAMAGED_TEXT = {
    "en": {"fatal": "gpu-wizard: this installation is damaged: {error}. "
                    "Reinstall gpu-wizard the way you installed it.",
           "warning": "gpu-wizard: warning: {name}: {reason}; some checks or text may be "
                      "missing. Reinstall gpu-wizard the way you installed it."},
    "zh": {"fatal": "gpu-wizard：安装文件已损坏：{error}。请按原来的方式重新安装 gpu-wizard。",
           "warning": "gpu-wizard：警告：{name}：{reason}；部分检查或文字可能缺失。"
                      "请按原来的方式重新安装 gpu-wizard。"},
}


def _lang(args: argparse.Namespace | None) -> str:
    from wizard.text.i18n import language_from_env  # lazy: see the top

    lang = getattr(args, "lang", None) or language_from_env()
    return lang if lang in _DAMAGED_TEXT else "en"


def _warn_damaged(lang: str) -> None:
    """Damaged files this run could do without: the output may lack a check or some text.

    Every file is read once more (~30 ms) so damage is reported even when this command did
    not happen to need the file, rather than at some later, more important moment."""
    from wizard.knowledge.content import check_installation  # lazy: see the top

    check_installation()  # records into DAMAGED
    for name, reason in DAMAGED.items():
        _say(_DAMAGED_TEXT[lang]["warning"].format(name=name, reason=reason))


def _say(text: str) -> None:
    from wizard.text.output import safe  # lazy: see the top

    try:
        print(safe(text, sys.stderr), file=sys.stderr)
    except (OSError, ValueError):  # the terminal is gone
        pass


def _interrupted(exc: KeyboardInterrupt, lang: str | None, writes_reports: bool = True) -> int:
    from wizard.text.i18n import language_from_env, t  # lazy: see the top

    signals.end_actions()  # probes in their own process groups did not get the signal
    saved = list(signals.SAVED)
    lang = lang or language_from_env()
    if saved:
        text = t("ui.exit.interrupted_saved", lang, path=saved[-1])
    else:
        text = t("ui.exit.interrupted" if writes_reports else "ui.exit.interrupted_plain", lang)
    _say(text)
    return signals.exit_code(exc)
