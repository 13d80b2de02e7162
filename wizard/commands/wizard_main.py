"""`gpu-wizard` with no subcommand: the interactive wizard, or a headless run with --answers."""

from __future__ import annotations

import argparse
import os
import sys


def run(args: argparse.Namespace) -> int:
    if args.answers:
        from wizard.commands.headless import run_headless

        return run_headless(args)
    from screens.app import run_app  # Textual loads only here, never for the other commands

    return run_app(args)


def refuse_without_terminal(lang: str) -> bool:
    """True (after saying why, on stderr) when there is no terminal to draw the wizard in."""
    why = no_terminal()
    if why is None:
        return False
    from wizard.text.i18n import t

    print(t("ui.exit.no_terminal", lang, why=t(f"ui.exit.no_terminal_{why}", lang)), file=sys.stderr)
    return True


def no_terminal() -> str | None:
    """Why the full-screen wizard cannot run here ("input", "output", "dumb"), or None.

    Started from a script, a pipe, cron or `< /dev/null`, it would wait forever for keys that
    never come or draw escape codes into a file."""
    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        try:
            if stream is None or not stream.isatty():
                return name
        except (ValueError, OSError):  # closed
            return name
    if sys.platform != "win32" and os.environ.get("TERM") == "dumb":
        return "dumb"
    return None
