"""The `q7` command the Python package installs: the q7 command line, run
in-process by the package's extension (q7._q7.cli), without importing the
q7 package itself (which imports torch; the command needs neither)."""

import glob
import importlib.machinery
import importlib.util
import os
import sys


def _extension():
    """q7._q7, loaded from the installed q7 package's directory alone."""
    spec = importlib.util.find_spec("q7")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        sys.exit("q7: the q7 package is not installed")
    for directory in spec.submodule_search_locations:
        for path in sorted(glob.glob(os.path.join(directory, "_q7.*so"))):
            loader = importlib.machinery.ExtensionFileLoader("q7._q7", path)
            module = importlib.util.module_from_spec(importlib.util.spec_from_loader("q7._q7", loader))
            loader.exec_module(module)
            return module
    sys.exit("q7: the q7 package has no extension module (q7/_q7.*.so); reinstall it")


def main():
    return _extension().cli(["q7"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
