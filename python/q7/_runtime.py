"""Calling ops: the CPU kernel q7 gives `torch.ops.<ns>.<op>`.

Per call: the op's own shape function (registered by register.h as
`<ns>::_q7_shape_<op>`) says the output's shape and dtype, which is what the
device's get_dst_tensor() has; q7 hands the simulator the addresses of the
contiguous input tensors (no files, no Python-level copies: each is copied
once, into simulated memory) and returns a tensor that views the output
bytes the simulator handed back (no copy on the Python side).
"""

import ctypes
import json
import sys
import time
import warnings

import torch

from q7 import _q7

# The element types the device SDK knows (c10::ScalarType names).
SUPPORTED_DTYPES = {
    torch.float32: "float32",
    torch.bfloat16: "bfloat16",
    torch.float16: "float16",
    torch.int32: "int32",
    torch.int16: "int16",
    torch.int8: "int8",
    torch.uint8: "uint8",
}

class UnwrittenOutputWarning(UserWarning):
    """Some output elements were written by no core (they stay zero)."""


# Instruction budget per call over all cores (a runaway op stops here).
MAX_INSTRUCTIONS = 20_000_000_000


class OpStats:
    """What the calls of one op cost."""

    def __init__(self):
        self.calls = 0
        self.instructions = 0
        self.simulated_seconds = 0.0  # inside the machine's run loop
        self.total_seconds = 0.0  # the whole kernel, shape function included

    def as_dict(self):
        return dict(vars(self))


_STATS = {}


def stats(op=None):
    """Call counters: for `op` ("ns::name"), or a dict of all ops."""
    if op is not None:
        return _STATS.setdefault(op, OpStats()).as_dict()
    return {name: s.as_dict() for name, s in _STATS.items()}


class Profile:
    """Profiles of the op calls made while it is active (`with q7.profile() as p:`).

    `p.calls` lists one dict per call: `op` ("ns::name") and `profile`, the
    report `q7 profile` prints as JSON (cost model, predicted device seconds,
    per core, per function, per source line, folded call stacks). The
    prediction is an estimate of the memory-class cost model
    (docs/COST_MODEL.md), not a measurement.
    """

    def __init__(self):
        self.calls = []
        self._reports = []  # the calls' _q7.ProfileReport, rendered by summary()

    def __enter__(self):
        _PROFILERS.append(self)
        return self

    def __exit__(self, *exc):
        _PROFILERS.remove(self)
        return False

    def predicted_seconds(self, op=None):
        """The model's predicted device time of all calls (of `op` only, if given)."""
        return sum(c["profile"]["predicted_seconds"] for c in self.calls if op is None or c["op"] == op)

    def summary(self, top=None):
        """The text `q7 profile` prints, per call in call order (a blank line
        between calls); `top` rows of the function and line tables, as its
        --top (default 15, 0 for all)."""
        texts = [r.text() if top is None else r.text(top) for r in self._reports]
        return "\n".join(texts)


_PROFILERS = []


def profile():
    """A context manager that profiles every q7 op call made inside it."""
    return Profile()


class BoundOp:
    """One op ("ns::op") bound to its compute function in a loaded compute library."""

    def __init__(self, qualified, compute_fn, compute, shape_op):
        self.qualified = qualified
        self.compute_fn = compute_fn
        self.compute = compute
        self.shape_op = shape_op
        schema = torch._C._get_schema(qualified, "")
        self.arguments = [(a.name, str(a.type)) for a in schema.arguments]
        self.stats = _STATS.setdefault(qualified, OpStats())

    def _where(self):
        cores = self.compute.cores
        return f"{self.qualified} (compute function {self.compute_fn}, {cores} core{'s' if cores > 1 else ''})"

    def _marshal(self, args):
        if len(args) != len(self.arguments):
            raise TypeError(f"{self._where()}: {len(args)} arguments given, the schema takes {len(self.arguments)}")
        keep, packed = [], []
        for value, (name, kind) in zip(args, self.arguments):
            if kind == "Tensor":
                if not isinstance(value, torch.Tensor):
                    raise TypeError(f"{self._where()}: argument {name} must be a Tensor, got {type(value).__name__}")
                if value.device.type != "cpu":
                    raise ValueError(
                        f"{self._where()}: argument {name} is on {value.device}; q7 runs ops on CPU tensors (use .cpu())"
                    )
                dtype = SUPPORTED_DTYPES.get(value.dtype)
                if dtype is None:
                    known = ", ".join(SUPPORTED_DTYPES.values())
                    raise TypeError(f"{self._where()}: argument {name} has dtype {value.dtype}; the device takes {known}")
                value = value.detach().contiguous()
                keep.append(value)
                nbytes = value.numel() * value.element_size()
                packed.append(("tensor", name, dtype, list(value.shape), value.data_ptr(), nbytes))
            elif kind == "float":
                packed.append(("double", float(value)))
            elif kind == "int":
                packed.append(("int", int(value)))
            elif kind in ("Scalar", "number"):
                packed.append(("scalar", float(value)))
            else:
                raise TypeError(f"{self._where()}: argument {name} of type {kind} cannot cross to the device")
        return keep, packed

    def __call__(self, *args):
        started = time.perf_counter()
        keep, packed = self._marshal(args)
        meta = self.shape_op(*args)
        out_dtype = SUPPORTED_DTYPES.get(meta.dtype)
        if out_dtype is None:
            raise TypeError(
                f"{self._where()}: the shape function returns dtype {meta.dtype}, which the device does not take"
            )
        try:
            output, stdout, stderr, insns, simulated, unwritten, profiled = self.compute.run(
                self.compute_fn, packed, out_dtype, list(meta.shape), MAX_INSTRUCTIONS, bool(_PROFILERS)
            )
        except _q7.SimulationError as e:
            message, stdout, stderr = e.args
            _echo(stdout, stderr)
            # A runtime check's own words (q7_fail, abort) are on the core's stderr.
            said = stderr.decode("utf-8", "replace").strip()
            if said:
                message += "\n" + "\n".join(said.splitlines()[-5:])
            raise _q7.SimulationError(f"{self._where()}: {message}") from None
        del keep
        _echo(stdout, stderr)
        if unwritten:
            warnings.warn(f"{self._where()}: {unwritten}", UnwrittenOutputWarning, stacklevel=2)
        if profiled is not None:
            record = {"op": self.qualified, "profile": json.loads(profiled.json)}
            for p in _PROFILERS:
                p.calls.append(record)
                p._reports.append(profiled)
        out = _as_tensor(output, meta.dtype, meta.shape)
        s = self.stats
        s.calls += 1
        s.instructions += insns
        s.simulated_seconds += simulated
        s.total_seconds += time.perf_counter() - started
        return out


def _as_tensor(output, dtype, shape):
    """A tensor of `dtype` and `shape` over the bytes `output` (a q7 Output)
    owns, without copying them; the tensor keeps `output` alive."""
    if output.nbytes == 0:
        return torch.empty(shape, dtype=dtype)
    raw = (ctypes.c_char * output.nbytes).from_address(output.address)
    raw.owner = output  # torch keeps `raw` alive, `raw` keeps the bytes alive
    return torch.frombuffer(raw, dtype=dtype).view(shape)


def _echo(stdout, stderr):
    """The cores' console output (already prefixed with the core id)."""
    if stdout:
        sys.stdout.write(stdout.decode("utf-8", "replace"))
    if stderr:
        sys.stderr.write(stderr.decode("utf-8", "replace"))


# Per namespace, the torch.library.Library that holds q7's CPU kernels, and
# per op, what the kernel currently runs (a later load re-binds it).
_LIBRARIES = {}
_BOUND = {}


def bind(ns, op, bound):
    """Makes torch.ops.<ns>.<op> run `bound` on CPU tensors."""
    qualified = f"{ns}::{op}"
    first = qualified not in _BOUND
    _BOUND[qualified] = bound
    if first:
        library = _LIBRARIES.get(ns)
        if library is None:
            library = _LIBRARIES[ns] = torch.library.Library(ns, "IMPL")

        def kernel(*args):
            return _BOUND[qualified](*args)

        library.impl(op, kernel, "CPU")
