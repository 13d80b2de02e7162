"""`gpu-wizard` with no subcommand: the interactive wizard, or a headless run with --answers."""

from __future__ import annotations

import argparse
import sys


def run(args: argparse.Namespace) -> int:
    if args.answers:
        from wizard.commands.headless import run_headless

        return run_headless(args)
    try:
        from wizard.app import run_app
    except ImportError:
        print("gpu-wizard: the interactive wizard is not part of this build yet; "
              "run `gpu-wizard check` for a diagnosis.", file=sys.stderr)
        return 2
    return run_app(args)
