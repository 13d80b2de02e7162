"""The Machine everything else reads, and where it comes from.

    live.py      this machine, while the probes (wizard.probe, wizard.pytorch.probe) still run
    recorded.py  a recorded machine (`--machine FILE`): a saved report or a fixture
    identify.py  what the probes found, named from the catalog, before anything reads it

The probes themselves hold facts only (tests/test_probe_imports.py); naming starts here. The
Machine holds no sentence (tests/test_facts_only.py): the renderers word it in the reader's language.
"""
