"""Is PyTorch installed in the chosen interpreter, which build is it, and does it work?

Two halves run side by side, because `import torch` alone takes one to three seconds:

* the live half imports torch in a child process of the chosen interpreter (`child.py` runs
  `wizard/pytorch/probe/describe_torch.py`, sent as `-c` source so nothing of gpu-wizard lands on that
  interpreter's path), with a hard time bound: a torch that hangs, segfaults or fails to load
  becomes a status, never a hang;
* the static half (`static.py`) needs no import: it finds torch's `*.dist-info` on the
  interpreter's path, reads `torch/version.py` with `ast`, and adds up the installed sizes of
  torch and of the GPU runtime packages it brought from their RECORD files. Those facts survive
  a child that never answers.

`assemble.py` turns both halves into a `TorchInfo`; `job.py` starts the child at once and
returns a job to join later, so the orchestrator can run every other probe while torch loads.
The job finds the interpreter first (wizard.probe.discover, which reads the static half), so it
is imported from its own module, never through this package: importing any part of the package
then never loads discovery.
Facts only: the sentence a person reads about them is `wizard.pytorch.wording.torch_message`.
"""

from __future__ import annotations

from wizard.pytorch.probe.assemble import NOT_PYTHON, SHADOW_MARK, assemble
from wizard.pytorch.probe.static import StaticFacts, static_torch_facts

__all__ = ["NOT_PYTHON", "SHADOW_MARK", "StaticFacts", "assemble", "static_torch_facts"]
