"""`gpu-wizard` with no subcommand: the interactive wizard, or a headless run with --answers.

Everything the command line decides before a screen is drawn happens here, in the core: the
replay file is read (a broken one is named first), the language chosen, and a run without a
terminal refused. Only then does Textual load, through the one door into the UI
(`screens.app.run_app`), which gets what was decided.
"""

from __future__ import annotations

import argparse
import os
import sys

from wizard.commands.headless import run_headless
from wizard.machine.recorded import MachineFileError, load_recording
from wizard.text.i18n import language_from_env, t


def run(args: argparse.Namespace) -> int:
    if args.answers:
        return run_headless(args)
    lang = getattr(args, "lang", None)
    replay = None
    if getattr(args, "machine", None):
        # Only a replay reads the catalog before the first screen; the wizard otherwise reads it
        # in its data check's thread. At the top: +45 ms of CPU before every wizard's first
        # screen (2026-12-04).
        from wizard.knowledge.load import load_knowledge

        try:
            # Damaged data files (KnowledgeError) are wizard.cli's to report.
            replay = load_recording(args.machine, load_knowledge(), lang or language_from_env())
        except MachineFileError as exc:
            print(f"gpu-wizard: {exc}", file=sys.stderr)
            return 2
        # A TA replaying a report sees it in the language the student saw (F2 switches).
        lang = lang or replay.language
        for problem in replay.answers_problems:
            print(t("ui.replay.answers_ignored", lang or language_from_env(), problem=problem),
                  file=sys.stderr)
    lang = lang or language_from_env()
    if refuse_without_terminal(lang):  # after the replay file: a broken one is named first
        return 2
    # The door into the UI: Textual loads only here, never for the other commands.
    from screens.app import run_app

    return run_app(args, lang, replay)


def refuse_without_terminal(lang: str) -> bool:
    """True (after saying why, on stderr) when there is no terminal to draw the wizard in."""
    why = no_terminal()
    if why is None:
        return False
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
