"""Everything about PyTorch, from the matrix of what exists to the line a student pastes.

    matrix/        the torch / CUDA / driver / GPU-arch facts (content/torch_matrix.toml) and the
                   compatibility rules on them
    probe/         is torch installed in the chosen Python, which build, does it work (a child
                   process of that Python runs describe_torch.py)
    vendor_gpus.py AMD and Intel GPUs as PyTorch sees them (ROCm targets, XPU)
    causes.py      Machine -> findings about PyTorch: the one root cause and its fix
    messages.py    what PyTorch's own warnings and errors mean
    choose.py      which release and wheel variant to install, every constraint together
    mirrors.py     the same install from a mirror that mainland China reaches
    installer.py   installing the chosen build into the Python that will use it, then proving it
    wording.py     the sentences about the checked PyTorch that every screen and command shares
"""
