"""Command-line entry: `gpu-wizard` (the wizard), `check`, `torch-command`, `report ...`.

Each subcommand lives in wizard/commands/<name>.py with `add_arguments(parser)` and
`run(args) -> int`; modules keep heavy imports inside `run` so `--help` and `check` start fast.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from wizard import __version__, signals
from wizard.content import DAMAGED, ContentError

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


class _TopParser(_Parser):
    """`gpu-wizard`: its --help lists every command, so only then are they all loaded."""

    def format_help(self) -> str:
        for action in self._actions:
            if isinstance(action, _Subcommands):
                action.load_all()
        return super().format_help()


class _Subcommands(argparse._SubParsersAction):
    """Subcommands whose module loads when the command is used (or listed by --help).

    Each command module costs its imports and argparse calls; `gpu-wizard check` must not
    pay for `report` and `install-torch` as well."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.top: argparse.ArgumentParser | None = None
        self.pending: dict[str, str] = {}   # name → module, not loaded yet

    def add_lazy(self, name: str, module_name: str) -> None:
        self.add_parser(name, help="")   # the help line is filled in with the module
        self.pending[name] = module_name

    def load(self, name: str) -> None:
        module_name = self.pending.pop(name, None)
        if module_name is None:
            return
        module = importlib.import_module(module_name)
        sub_parser = self._name_parser_map[name]
        sub_parser.description = module.HELP
        for choice in self._choices_actions:
            if choice.dest == name:
                choice.help = module.HELP
        module.add_arguments(sub_parser)
        if self.top is not None:
            _keep_top_level_values(self.top, sub_parser)
        sub_parser.set_defaults(_module=module)

    def load_all(self) -> None:
        for name in list(self.pending):
            self.load(name)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        self.load(values[0])
        super().__call__(parser, namespace, values, option_string)


def build_parser(lazy: bool = False) -> argparse.ArgumentParser:
    """The whole command line; `lazy`: a command's module loads only when it is used."""
    parser = _TopParser(
        prog="gpu-wizard",
        description="Does this computer have a GPU PyTorch can use? What should I install or buy?",
    )
    parser.add_argument("--version", action="version", version=f"gpu-wizard {__version__}")
    add_wizard_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                action=_Subcommands)
    assert isinstance(sub, _Subcommands)   # `action=` made it one; mypy sees the base class
    sub.top = parser
    for name, module_name in COMMANDS.items():
        sub.add_lazy(name, module_name)
    if not lazy:
        sub.load_all()
    return parser


def _keep_top_level_values(top: argparse.ArgumentParser, sub: argparse.ArgumentParser) -> None:
    """`gpu-wizard --lang zh check` must mean what `gpu-wizard check --lang zh` means.

    argparse lets a subcommand's own default overwrite a value given before the subcommand;
    a suppressed default leaves it alone.
    """
    shared = {action.dest for action in top._actions if action.option_strings}
    for action in sub._actions:
        if action.dest in shared and action.option_strings:
            action.default = argparse.SUPPRESS


def add_wizard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=("en", "zh"), help="language (default: from the locale; zh* → zh)")
    parser.add_argument("--python", metavar="PATH",
                        help="the interpreter whose torch is checked (default: found where your PyTorch is)")
    parser.add_argument("--no-gpu-test", action="store_true",
                        help="do not run a tiny kernel on each visible GPU")
    parser.add_argument("--no-discover", action="store_true",
                        help="run no Python to look for PyTorch but --python (or gpu-wizard's own)")
    parser.add_argument("--machine", metavar="FILE", help="use a recorded machine instead of probing")
    parser.add_argument("--answers", metavar="FILE", help="headless run: answers from FILE")
    parser.add_argument("--report", metavar="PATH", help="where the report is saved")
    parser.add_argument("--no-redact", action="store_true",
                        help="keep host name, user name and GPU UUIDs in the report")


def run(argv: list[str] | None = None) -> int:
    """The `gpu-wizard` command: `main`, then an exit without Python's teardown. After a
    command the process ends at once (end_now). After the wizard, whose screen library may
    still be letting go of the terminal, Python's own exit runs, but everything made so far is
    kept out of the cycle collector's sight: its last walk over the modules, the machine and
    the screens, for memory the OS takes back anyway, cost ~8 ms. Not in `main`, which the
    tests call many times in one process."""
    status, command = _main(argv)
    if command:
        end_now(status)
    gc.freeze()
    return status


def end_now(status: int) -> None:
    """End the process: the atexit handlers (children of ours still running are ended, our
    temporary folders removed), the output flushed, and then no more. Python's own exit would
    go on to tear every module down, one object at a time, for memory the OS takes back
    anyway: ~6 ms of a `check` or `report summarize`, more than the whole of what they print."""
    import atexit

    atexit._run_exitfuncs()
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
        parser = build_parser(lazy=True)
        args = parser.parse_args(argv)
        bad_python = _check_python(args)
        if bad_python is not None:
            _say(bad_python)
            return 2, False
        module = getattr(args, "_module", None)
        if module is not None:
            command = True
            status = module.run(args)
        else:
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
    from wizard.i18n import t
    from wizard.probe.discover import PythonArgError, check_python_arg

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
    from wizard.i18n import language_from_env

    lang = getattr(args, "lang", None) or language_from_env()
    return lang if lang in _DAMAGED_TEXT else "en"


def _warn_damaged(lang: str) -> None:
    """Damaged files this run could do without: the output may lack a check or some text.

    Every file is read once more (~30 ms) so damage is reported even when this command did
    not happen to need the file, rather than at some later, more important moment."""
    from wizard.content import check_installation

    check_installation()  # records into DAMAGED
    for name, reason in DAMAGED.items():
        _say(_DAMAGED_TEXT[lang]["warning"].format(name=name, reason=reason))


def _say(text: str) -> None:
    from wizard.textout import safe

    try:
        print(safe(text, sys.stderr), file=sys.stderr)
    except (OSError, ValueError):  # the terminal is gone
        pass


def _interrupted(exc: KeyboardInterrupt, lang: str | None, writes_reports: bool = True) -> int:
    from wizard.i18n import language_from_env, t

    runner = sys.modules.get("wizard.probe.runner")
    if runner is not None:
        runner.kill_running()  # probes in their own process groups did not get the signal
    report = sys.modules.get("wizard.report")
    saved = list(getattr(report, "SAVED", []))
    lang = lang or language_from_env()
    if saved:
        text = t("ui.exit.interrupted_saved", lang, path=saved[-1])
    else:
        text = t("ui.exit.interrupted" if writes_reports else "ui.exit.interrupted_plain", lang)
    _say(text)
    return signals.exit_code(exc)
