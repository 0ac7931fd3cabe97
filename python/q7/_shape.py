"""Shape libraries built against libtorch, with `torch.utils.cpp_extension`
and q7's `torchneuron/register.h`: the path for shape sources that use what
q7's host torch lacks (q7._host_shape builds the others).

A build takes most of a minute (libtorch's headers), so finished libraries
are cached under a key made of what goes into them: the sources' names and
contents, the flags, the include directories, the torch version and q7's
register.h. Headers the sources include from elsewhere are not part of the
key; q7.custom_op.load(..., build_directory=...) with a changed header
needs Q7_CACHE_DIR pointed elsewhere or the cache entry removed.

cpp_extension.load also loads what it built, and torch aborts the process
when a second library registers a namespace, so the build runs in a child
interpreter: q7 checks the namespaces before this process loads anything.
A library's first load is tried in a child too (`probe`): torch's loader
turns every C++ exception of a registration into an abort.
"""

import collections
import hashlib
import json
import os
import subprocess
import sys

from q7 import _archive

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def cache_root():
    """$Q7_CACHE_DIR, else $XDG_CACHE_HOME/q7, else ~/.cache/q7."""
    explicit = os.environ.get("Q7_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "q7")


def _key(name, sources, cflags, include_paths):
    import torch

    h = hashlib.sha256()
    h.update(f"q7-shape-1\0{name}\0{torch.__version__}\0".encode())
    with open(os.path.join(INCLUDE_DIR, "torchneuron", "register.h"), "rb") as f:
        h.update(f.read())
    for src in sources:
        h.update(os.path.basename(src).encode() + b"\0")
        with open(src, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    for flag in cflags:
        h.update(b"F" + flag.encode() + b"\0")
    for inc in include_paths:
        h.update(b"I" + os.path.abspath(inc).encode() + b"\0")
    return h.hexdigest()[:16]


def build(name, sources, cflags, include_paths, log=None, progress=None):
    """Returns the path of the shape library of `sources`, building it once
    (not loaded into this process); `progress` hears one line when it builds."""
    for src in sources:
        if not os.path.isfile(src):
            raise FileNotFoundError(f"{src}: shape source not found")
    key = _key(name, sources, cflags, include_paths)
    ext_name = f"{name}_shape_{key}"
    directory = os.path.join(cache_root(), "shape", ext_name)
    library = os.path.join(directory, f"{ext_name}.so")
    if os.path.isfile(library):
        if log:
            log(f"q7: shape library {library} (cached)")
        return library
    os.makedirs(directory, exist_ok=True)
    if log:
        log(f"q7: building shape library from {', '.join(sources)} with torch.utils.cpp_extension")
    if progress:
        progress("q7: building the shape library against libtorch (most of a minute; cached for next time)")
    spec = {
        "name": ext_name,
        "sources": [os.path.abspath(s) for s in sources],
        "extra_cflags": list(cflags),
        "extra_include_paths": [INCLUDE_DIR] + [os.path.abspath(p) for p in include_paths],
        "build_directory": directory,
        "is_python_module": False,
        "verbose": bool(log),
    }
    _run_builder(spec, sources, log)
    if not os.path.isfile(library):
        raise RuntimeError(f"{', '.join(sources)}: torch.utils.cpp_extension made no {library}")
    return library


# The child: cpp_extension locks the directory against concurrent builders,
# builds with ninja (resuming an interrupted build) and would then load the
# library, which the child skips (a namespace torch already has would abort
# it). Its error carries the compiler's output.
_BUILDER = """
import json, sys, torch
from torch.utils import cpp_extension
torch.ops.load_library = lambda path: None
try:
    cpp_extension.load(**json.loads(sys.argv[1]))
except Exception as e:
    print(e, flush=True)
    sys.exit(1)
"""


def _run_builder(spec, sources, log):
    """Runs cpp_extension.load(**spec) in a child interpreter; its output goes
    to `log` line by line, and its last lines into the error when it fails."""
    tail = collections.deque(maxlen=60)
    with subprocess.Popen(
        [sys.executable, "-c", _BUILDER, json.dumps(spec)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    ) as child:
        try:
            for line in child.stdout:
                line = line.rstrip("\n")
                tail.append(line)
                if log:
                    log(line)
            status = child.wait()
        except BaseException:
            child.kill()
            raise
    if status != 0:
        said = "\n".join(tail).strip()
        raise RuntimeError(f"{', '.join(sources)}: the shape sources do not build (torch.utils.cpp_extension)\n{said}")


# The child of `probe`: torch's own loader, alone in a process.
_PROBE = """
import sys, torch
torch.ops.load_library(sys.argv[1])
"""


def probe(library, digest, origin):
    """Loads the shape library at `library` in a child interpreter, unless
    a child did for this library (`digest`) and torch before: torch's
    loader aborts the process on a C++ exception in a registration (an op
    defined twice, a schema it cannot parse, a library of another
    libtorch's ABI). Raises RuntimeError with the child's reason, naming
    `origin`; this process has loaded nothing."""
    import torch

    marker = f"{library}.q7-loads"
    stamp = f"{digest} torch {torch.__version__}\n".encode()
    try:
        with open(marker, "rb") as f:
            if f.read() == stamp:
                return
    except OSError:
        pass
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, library],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{origin}: torch cannot load this shape library: {_reason(done)} "
            "(found by loading it in a child process; this one loaded nothing)"
        )
    try:
        _archive.write_atomic(marker, stamp)
    except OSError:
        pass  # the next load tries it again


def _reason(done):
    """One line from a failed child: the C++ exception's what(), else its last line of output."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("what():"):
            return line[len("what():") :].strip()
    if lines:
        return lines[-1]
    return f"the child process ended with status {done.returncode}"
