"""Calling ops: the CPU kernel q7 gives `torch.ops.<ns>.<op>`.

Per call: the op's own shape function (registered by register.h as
`<ns>::_q7_shape_<op>`) says the output's shape and dtype, which is what the
device's get_dst_tensor() has; q7 hands the simulator each input tensor's
bytes as an immutable `bytes` copy (no addresses cross to Rust, and nothing
the caller does to the tensor meanwhile reaches the run) and returns a tensor
over the `bytearray` of output bytes the simulator handed back.
"""

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


class ConsoleOutputWarning(UserWarning):
    """The cores printed more than q7 keeps: the rest of their console output was dropped."""


def _dropped_note(dropped):
    return f"{dropped} bytes of the cores' console output were dropped (more than q7 keeps per call)"


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


def _op_name(op):
    """"ns::op" of an op given by that name or as torch.ops.ns.op (the
    OpOverloadPacket) or torch.ops.ns.op.default (an OpOverload)."""
    if isinstance(op, str):
        return op
    name = getattr(op, "_qualified_op_name", None)
    if name is None:
        name = getattr(getattr(op, "_schema", None), "name", None)
    if not isinstance(name, str):
        raise TypeError(f"{op!r} is not an op: give torch.ops.<ns>.<op> or its name \"ns::op\"")
    return name


def stats(op=None):
    """Call counters: for `op` (torch.ops.ns.op, or "ns::op"), or a dict of all ops."""
    if op is None:
        return {name: s.as_dict() for name, s in _STATS.items()}
    name = _op_name(op)
    if name not in _STATS:
        raise ValueError(f"{name} is not an op q7 has bound (custom_op.load or load_library binds them)")
    return _STATS[name].as_dict()


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

    def __enter__(self):
        _PROFILERS.append(self)
        return self

    def __exit__(self, *exc):
        _PROFILERS.remove(self)
        return False

    def predicted_seconds(self, op=None):
        """The model's predicted device time of all calls (of `op` only, if
        given: torch.ops.ns.op or "ns::op")."""
        name = None if op is None else _op_name(op)
        return sum(c["profile"]["predicted_seconds"] for c in self.calls if name is None or c["op"] == name)

    def summary(self, top=5):
        """A short text report: per op, calls and predicted time; the costliest functions."""
        by_op = {}
        for c in self.calls:
            entry = by_op.setdefault(c["op"], {"calls": 0, "seconds": 0.0, "functions": {}})
            entry["calls"] += 1
            entry["seconds"] += c["profile"]["predicted_seconds"]
            for f in c["profile"]["functions"]:
                entry["functions"][f["function"]] = entry["functions"].get(f["function"], 0.0) + f["cycles"]
        model = self.calls[0]["profile"]["model"]["name"] if self.calls else "-"
        lines = [f"q7 profile: {len(self.calls)} op calls, cost model {model} (estimates)"]
        for op, e in by_op.items():
            lines.append(f"  {op}: {e['calls']} calls, predicted {e['seconds'] * 1e3:.3f} ms on the device")
            for name, cycles in sorted(e["functions"].items(), key=lambda kv: -kv[1])[:top]:
                lines.append(f"    {cycles:14.0f} cycles  {name}")
        return "\n".join(lines)


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
        packed = []
        for value, (name, kind) in zip(args, self.arguments):
            if kind == "Tensor":
                if not isinstance(value, torch.Tensor):
                    got = "None" if value is None else type(value).__name__
                    raise TypeError(f"{self._where()}: argument {name} must be a Tensor, got {got}")
                if value.device.type != "cpu":
                    raise TypeError(
                        f"{self._where()}: argument {name} is on {value.device}; q7 runs ops on CPU tensors (use .cpu())"
                    )
                if value.layout != torch.strided:
                    raise TypeError(
                        f"{self._where()}: argument {name} is a {value.layout} tensor; the device reads dense "
                        "tensors (use .to_dense())"
                    )
                dtype = SUPPORTED_DTYPES.get(value.dtype)
                if dtype is None:
                    known = ", ".join(SUPPORTED_DTYPES.values())
                    raise TypeError(f"{self._where()}: argument {name} has dtype {value.dtype}; the device takes {known}")
                value = value.detach().resolve_neg().contiguous()
                data = value.reshape(-1).view(torch.uint8).numpy().tobytes()
                packed.append(("tensor", name, dtype, list(value.shape), data))
            elif kind == "float":
                packed.append(("double", float(value)))
            elif kind == "int":
                packed.append(("int", int(value)))
            elif kind in ("Scalar", "number"):
                packed.append(("scalar", float(value)))
            else:
                raise TypeError(f"{self._where()}: argument {name} of type {kind} cannot cross to the device")
        return packed

    def __call__(self, *args):
        started = time.perf_counter()
        packed = self._marshal(args)
        meta = self.shape_op(*args)
        out_dtype = SUPPORTED_DTYPES.get(meta.dtype)
        if out_dtype is None:
            raise TypeError(
                f"{self._where()}: the shape function returns dtype {meta.dtype}, which the device does not take"
            )
        try:
            output, stdout, stderr, insns, simulated, unwritten, profiled, dropped = self.compute.run(
                self.compute_fn, packed, out_dtype, list(meta.shape), MAX_INSTRUCTIONS, bool(_PROFILERS)
            )
        except _q7.SimulationError as e:
            message, stdout, stderr, dropped = e.args
            _echo(stdout, stderr)
            # A runtime check's own words (q7_fail, abort) are on the core's stderr.
            said = stderr.decode("utf-8", "replace").strip()
            if said:
                message += "\n" + "\n".join(said.splitlines()[-5:])
            if dropped:
                message += f"\n({_dropped_note(dropped)})"
            raise _q7.SimulationError(f"{self._where()}: {message}") from None
        _echo(stdout, stderr)
        if dropped:
            warnings.warn(f"{self._where()}: {_dropped_note(dropped)}", ConsoleOutputWarning, stacklevel=2)
        if unwritten:
            warnings.warn(f"{self._where()}: {unwritten}", UnwrittenOutputWarning, stacklevel=2)
        if profiled is not None:
            record = {"op": self.qualified, "profile": json.loads(profiled)}
            for p in _PROFILERS:
                p.calls.append(record)
        out = _as_tensor(output, meta.dtype, meta.shape)
        s = self.stats
        s.calls += 1
        s.instructions += insns
        s.simulated_seconds += simulated
        s.total_seconds += time.perf_counter() - started
        return out


def _as_tensor(output, dtype, shape):
    """A tensor of `dtype` and `shape` over `output`, a bytearray only this
    tensor holds (torch keeps it alive), without copying it."""
    if not output:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(output, dtype=dtype).view(shape)


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
    """Makes torch.ops.<ns>.<op> run `bound` on CPU tensors, and check (and
    refuse) every other kind of argument."""
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
        # Every other dispatch key (meta, sparse, an undefined tensor for
        # None) ran the shape function, which answers with an empty tensor:
        # replace that catch-all too, so the call reaches the checks in
        # BoundOp. torch warns that it overrides register.h's kernel; meant.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            library.impl(op, kernel, "CompositeImplicitAutograd")
