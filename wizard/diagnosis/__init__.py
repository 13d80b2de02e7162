"""What is wrong with this machine or worth knowing, and what it means for the next step.

    findings.py      a finding: one thing worth telling, with its severity and fix
    nvidia_cause.py  NVML's raw answer turned into the cause a beginner can act on
    diagnose.py      Machine -> every finding (NVIDIA, the other GPUs, memory, disk, PyTorch)
    judgement.py     what the findings mean, decided once: the marks, ready or not, the next step

Pure: no probing here; the findings about PyTorch itself live in wizard.pytorch.causes.
"""
