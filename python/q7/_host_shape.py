"""Shape libraries against q7's host torch (sdk/host), not libtorch.

The shape sources compile in about a second against q7's minimal torch
(tensors with sizes and a dtype, no data) and link with
sdk/host/src/shape_abi.cpp into a library with a C ABI, which this module
loads with ctypes: it lists the NEURON_LIBRARY ops with the schemas torch
would infer, and answers each call's output shape and dtype. torch learns
the ops from Python (torch.library), so nothing here depends on the torch
version. Sources that use what the host torch lacks build against libtorch
instead (q7._shape), after a one-line note naming the construct.
"""

import ctypes
import os
import re
import subprocess
import sys

import torch

from q7 import _archive, _q7

# What metadata.json's `shape_abi` says of such a library, and the version
# of the C ABI (q7_shape_abi_version) this module speaks.
KIND = "q7-host"
ABI_VERSION = 1

# c10::ScalarType codes of sdk/host/include/torch/torch.h.
DTYPE_CODES = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.bfloat16: 8,
    torch.bool: 9,
}
DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}

# q7_shape_call's failures (sdk/host/src/shape_abi.cpp) as Python raises
# libtorch's: c10::IndexError, c10::ValueError, c10::Error.
_ERRORS = {1: IndexError, 2: ValueError, 3: RuntimeError, 4: RuntimeError}

# The most dimensions q7 takes (the device's rank limit), and room for a message.
MAX_RANK = 8
_MESSAGE = 1024


def build(name, sources, cflags, include_paths, build_files, log=None, progress=None):
    """Builds the shape library of `sources` in `build_files`/shape/ and
    returns its path; None, after printing a one-line note, when the sources
    need libtorch (the caller builds them there). `log` hears every step and
    command, `progress` one line when the build has work to do."""
    for src in sources:
        if not os.path.isfile(src):
            raise FileNotFoundError(f"{src}: shape source not found")
    if os.environ.get("Q7_SHAPE_LIBTORCH") == "1":
        return None
    path, why = _q7.shape_library(
        build_files,
        f"lib{name}_shape.so",
        [os.path.abspath(s) for s in sources],
        [os.path.abspath(p) for p in include_paths],
        list(cflags),
        log,
        progress,
    )
    if path is None:
        print(f"q7: {unsupported(why)}; building the shape library against libtorch instead", file=sys.stderr, flush=True)
        return None
    if log:
        log(f"q7: shape library {path} (built against q7's host torch)")
    return str(path)


_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<what>.+)$", re.M)
_UNDEFINED = re.compile(r"undefined reference to [`'](?P<symbol>[^'`]+)'")


def unsupported(why):
    """One line naming what of the shape sources the host torch lacks: the
    compiler's first error with its place, the linker's first undefined
    symbol, else the first line of `why`."""
    found = _DIAGNOSTIC.search(why)
    if found:
        return f"{os.path.basename(found['file'])}:{found['line']}: q7's host torch cannot build this: {found['what']}"
    found = _UNDEFINED.search(why)
    if found:
        return f"q7's host torch lacks {found['symbol']}"
    first = next((line for line in why.splitlines() if line.strip()), "the shape sources do not build")
    return f"q7's host torch cannot build the shape sources: {first}"


# The child of `probe`: the library loaded alone, its op list printed.
_PROBE = """
import ctypes, sys
library = ctypes.CDLL(sys.argv[1])
library.q7_shape_list.restype = ctypes.c_char_p
sys.stdout.write(f"{library.q7_shape_abi_version()}\\n" + library.q7_shape_list().decode())
"""


def probe(path, digest, origin):
    """Loads the library at `path` in a child interpreter (unless one did for
    `digest`): its static initializers run the author's code, which could
    end the process. Raises RuntimeError naming `origin` when the child
    fails or the library speaks another C ABI."""
    marker = f"{path}.q7-loads"
    stamp = f"{digest} {KIND} {ABI_VERSION}\n".encode()
    try:
        with open(marker, "rb") as f:
            if f.read() == stamp:
                return
    except OSError:
        pass
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _PROBE, path],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
    )
    if done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-1:] or [f"status {done.returncode}"]
        raise RuntimeError(
            f"{origin}: the shape library does not load: {last[0]} (found by loading it in a child process; "
            "this one loaded nothing)"
        )
    version = done.stdout.split("\n", 1)[0]
    if version != str(ABI_VERSION):
        raise RuntimeError(f"{origin}: a q7 host shape library of C ABI version {version}; this q7 speaks {ABI_VERSION}")
    try:
        _archive.write_atomic(marker, stamp)
    except OSError:
        pass  # the next load probes it again


def parse_list(text, origin):
    """[(ns, op, compute function, schema)] of q7_shape_list's text."""
    ops = []
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) != 4:
            raise RuntimeError(f"{origin}: an unreadable registration {line!r}")
        ops.append(tuple(fields))
    if not ops:
        raise RuntimeError(f"{origin}: NEURON_LIBRARY registered no ops (include \"torchneuron/register.h\" and m.def each op)")
    return ops


def torch_schema(schema):
    """The schema torch infers from the same shape function: its return
    named as libtorch names it ("op(Tensor _0) -> Tensor _0")."""
    return re.sub(r"->\s*Tensor\s*$", "-> Tensor _0", schema)


class Library:
    """A loaded host shape library: `ops`, [(ns, op, compute function,
    schema)] in its order, and `shape_function(index)`, the callable that
    answers op `index`'s output (dtype, shape) for a call's arguments."""

    def __init__(self, path, origin):
        handle = ctypes.CDLL(path)
        version = handle.q7_shape_abi_version()
        if version != ABI_VERSION:
            raise RuntimeError(f"{origin}: a q7 host shape library of C ABI version {version}; this q7 speaks {ABI_VERSION}")
        handle.q7_shape_list.restype = ctypes.c_char_p
        self.ops = parse_list(handle.q7_shape_list().decode(), origin)
        call = handle.q7_shape_call
        i64, p64 = ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)
        call.argtypes = [i64, p64, i64, ctypes.POINTER(ctypes.c_double), i64, p64, i64, ctypes.c_char_p, i64]
        call.restype = ctypes.c_int
        self._call = call
        self._handle = handle  # the library stays loaded while its functions are bound

    def shape_function(self, index):
        kinds = [p.rsplit(" ", 1)[0] for p in _parameters(self.ops[index][3])]
        call = self._call

        def shape(args):
            words = []
            reals = []
            for value, kind in zip(args, kinds):
                if kind == "Tensor":
                    sizes = value.shape
                    words.append(DTYPE_CODES.get(value.dtype, -9))
                    words.append(len(sizes))
                    words.extend(sizes)
                elif kind == "int":
                    words += (-1, int(value))
                elif kind == "float":
                    words.append(-2)
                    reals.append(float(value))
                elif isinstance(value, (bool, int)):  # a Scalar holding an int
                    words += (-3, int(value))
                else:
                    words.append(-4)
                    reals.append(float(value))
            out = (ctypes.c_int64 * (2 + MAX_RANK))()
            message = ctypes.create_string_buffer(_MESSAGE)
            status = call(
                index,
                (ctypes.c_int64 * len(words))(*words),
                len(words),
                (ctypes.c_double * len(reals))(*reals),
                len(reals),
                out,
                2 + MAX_RANK,
                message,
                _MESSAGE,
            )
            if status:
                raise _ERRORS.get(status, RuntimeError)(message.value.decode("utf-8", "replace"))
            return DTYPES[out[0]], tuple(out[2 : 2 + out[1]])

        return shape


def _parameters(schema):
    """["Tensor _0", "float _1"] of "op(Tensor _0, float _1) -> Tensor"."""
    inside = schema[schema.index("(") + 1 : schema.rindex(")")]
    return [p.strip() for p in inside.split(",") if p.strip()]
