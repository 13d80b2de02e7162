"""gpu-wizard: does this machine have a GPU PyTorch can use, and what should I do about it?"""

__version__ = "0.1.0"
