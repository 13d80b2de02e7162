"""A `torch` that fails the ways real installs fail, chosen by FAKE_TORCH.

  hang          import never finishes (a network home folder, a stuck driver)
  segv          import dies with SIGSEGV (mismatched native libraries)
  abort         import aborts (SIGABRT from a C++ assertion)
  import-error  import raises ImportError naming a missing CUDA library
  os-error      import raises OSError (a DLL/.so that will not load)
  exit          the interpreter exits with status 3 during import
  garbage       prints junk to stdout and stderr, then raises
"""

import os
import sys
import time

_mode = os.environ.get("FAKE_TORCH", "import-error")
if _mode == "hang":
    time.sleep(3600)
elif _mode == "segv":
    import signal
    os.kill(os.getpid(), signal.SIGSEGV)
elif _mode == "abort":
    os.abort()
elif _mode == "os-error":
    raise OSError("[WinError 126] The specified module could not be found. Error loading c10.dll")
elif _mode == "exit":
    os._exit(3)
elif _mode == "garbage":
    sys.stdout.write("\x1b[2J{garbage\n" * 50)
    sys.stderr.write("W1130 fake warning\n" * 50)
    raise RuntimeError("CUDA driver initialization failed")
raise ImportError("libcudart.so.12: cannot open shared object file: No such file or directory")
