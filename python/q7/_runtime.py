"""Calling ops: the CPU kernel q7 gives `torch.ops.<ns>.<op>`.

Per call: the op's own shape function (through the host shape library's C
ABI, or registered by register.h as `<ns>::_q7_shape_<op>` in a libtorch
one) says the output's shape and dtype, which is what the device's
get_dst_tensor() has; q7 hands the simulator each input tensor's
bytes as an immutable `bytes` copy (no addresses cross to Rust, and nothing
the caller does to the tensor meanwhile reaches the run) and returns a tensor
over the `bytearray` of output bytes the simulator handed back.
"""

import contextlib
import contextvars
import json
import sys
import threading
import time
import warnings

import torch

from q7 import _debug, _q7
from q7._errors import (
    ConsoleOutputWarning,
    Frame,
    ShapeFunctionError,
    SimulationError,
    UnwrittenOutputWarning,
    for_caller,
)

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


def _dropped_note(dropped):
    return f"{dropped} bytes of the cores' console output were dropped (more than q7 keeps per call)"


# Instruction budget per call over all cores (a runaway op stops here).
MAX_INSTRUCTIONS = 20_000_000_000

# The options of a call, as `q7 run` has them: q7's checks (--no-checks),
# the SDK's (--no-sdk-checks), --strict, --max-insns, --threads (None: the
# host's available parallelism, at most 8).
DEFAULT_OPTIONS = {
    "checks": True,
    "no_sdk_checks": False,
    "strict": False,
    "max_instructions": MAX_INSTRUCTIONS,
    "threads": None,
}

# What the innermost `q7.options(...)` block of this thread or task sets.
_OVERRIDES = contextvars.ContextVar("q7_options", default={})


def check_options(checks=None, no_sdk_checks=None, strict=None, max_instructions=None, threads=None):
    """The options given (not None), checked: a dict of DEFAULT_OPTIONS' keys."""
    given = {}
    for name, value in (("checks", checks), ("no_sdk_checks", no_sdk_checks), ("strict", strict)):
        if value is not None:
            if not isinstance(value, bool):
                raise TypeError(f"q7 option {name} is True or False, not {value!r}")
            given[name] = value
    if max_instructions is not None:
        if isinstance(max_instructions, bool) or not isinstance(max_instructions, int) or not 0 < max_instructions < 2**64:
            raise ValueError(f"q7 option max_instructions is a positive whole number, not {max_instructions!r}")
        given["max_instructions"] = max_instructions
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or not 0 < threads <= 64:
            raise ValueError(f"q7 option threads is a whole number from 1 to 64, not {threads!r}")
        given["threads"] = threads
    return given


@contextlib.contextmanager
def options(checks=None, no_sdk_checks=None, strict=None, max_instructions=None, threads=None):
    """`with q7.options(...):` runs the q7 op calls inside the block with
    these options (those not given keep what load/load_library set):

    * `checks`: q7's checks (stray stores and loads, races, reads of
      unwritten output, TCM or stack); False runs without them (`q7 run --no-checks`);
    * `no_sdk_checks`: True turns the SDK's own runtime checks off (TCM copy
      ranges, accessor dtype and rank), as on hardware;
    * `strict`: True makes output elements no core wrote an error, not an
      `UnwrittenOutputWarning`;
    * `max_instructions`: the instruction budget of a call over all cores;
    * `threads`: host threads the eight cores may run on (default: the
      host's available parallelism, at most 8; 1 runs them round-robin on
      one). Calls with checks on run round-robin whatever it says.
    """
    given = check_options(checks, no_sdk_checks, strict, max_instructions, threads)
    token = _OVERRIDES.set({**_OVERRIDES.get(), **given})
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


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
# Ops are called from any thread (the simulation releases the GIL): the
# module's tables (_STATS, _PROFILERS, _BOUND, _LIBRARIES) and the counters
# in them change under this lock, or two calls would lose each other's
# counts and two binds would both register with torch.
_STATE_LOCK = threading.RLock()


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
    name = None if op is None else _op_name(op)
    with _STATE_LOCK:
        if name is None:
            return {name: s.as_dict() for name, s in _STATS.items()}
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
        self._reports = []  # the calls' _q7.ProfileReport, which summary() renders

    def __enter__(self):
        with _STATE_LOCK:
            _PROFILERS.append(self)
        return self

    def __exit__(self, *exc):
        with _STATE_LOCK:
            _PROFILERS.remove(self)
        return False

    def predicted_seconds(self, op=None):
        """The model's predicted device time of all calls (of `op` only, if
        given: torch.ops.ns.op or "ns::op")."""
        name = None if op is None else _op_name(op)
        return sum(c["profile"]["predicted_seconds"] for c in self.calls if name is None or c["op"] == name)

    def summary(self, top=None):
        """The text `q7 profile` prints, for each call in call order (a blank
        line between calls), from the same renderer; `top` rows of the
        function and line tables, as its --top (default 15, 0 for all)."""
        return "\n".join(r.text() if top is None else r.text(top) for r in self._reports)


_PROFILERS = []


def profile():
    """A context manager that profiles every q7 op call made inside it."""
    return Profile()


class BoundOp:
    """One op ("ns::op") bound to its compute function in a loaded compute
    library, with the options load or load_library gave it and the compute
    sources' paths by file name (to name a frame's file whole). `shape`
    answers the call's arguments with the output's (dtype, shape)."""

    def __init__(self, qualified, compute_fn, compute, shape, options=None, sources=()):
        self.qualified = qualified
        self.compute_fn = compute_fn
        self.compute = compute
        self.shape = shape
        self.options = {**DEFAULT_OPTIONS, **(options or {})}
        self.sources = {}
        for path in sources:
            self.sources.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        schema = torch._C._get_schema(qualified, "")
        self.arguments = [(a.name, str(a.type)) for a in schema.arguments]
        with _STATE_LOCK:
            self.stats = _STATS.setdefault(qualified, OpStats())

    def _where(self):
        cores = self.compute.cores
        return f"{self.qualified} (compute function {self.compute_fn}, {cores} core{'s' if cores > 1 else ''})"

    def _marshal(self, args):
        if len(args) != len(self.arguments):
            raise for_caller(
                TypeError(f"{self._where()}: {len(args)} arguments given, the schema takes {len(self.arguments)}")
            )
        packed = []
        for value, (name, kind) in zip(args, self.arguments):
            if kind == "Tensor":
                packed.append(self._tensor(name, value))
            elif kind == "float":
                packed.append(("double", float(value)))
            elif kind == "int":
                packed.append(("int", int(value)))
            elif kind in ("Scalar", "number"):
                packed.append(("scalar", float(value)))
            else:
                raise for_caller(TypeError(f"{self._where()}: argument {name} of type {kind} cannot cross to the device"))
        return packed

    def _tensor(self, name, value):
        def refuse(why):
            return for_caller(TypeError(f"{self._where()}: argument {name} {why}"))

        if not isinstance(value, torch.Tensor):
            raise refuse(f"must be a Tensor, got {'None' if value is None else type(value).__name__}")
        if value.device.type != "cpu":
            raise refuse(f"is on {value.device}; q7 runs ops on CPU tensors (use .cpu())")
        if value.layout != torch.strided:
            raise refuse(f"is a {value.layout} tensor; the device reads dense tensors (use .to_dense())")
        dtype = SUPPORTED_DTYPES.get(value.dtype)
        if dtype is None:
            raise refuse(f"has dtype {value.dtype}; the device takes {', '.join(SUPPORTED_DTYPES.values())}")
        value = value.detach().resolve_neg().contiguous()
        data = value.reshape(-1).view(torch.uint8).numpy().tobytes()
        return ("tensor", name, dtype, list(value.shape), data)

    def _shape(self, args):
        """The shape function's (dtype, shape) for `args`: the destination's."""
        try:
            return self.shape(args)
        except Exception as e:
            e.__traceback__ = None  # raised in C++ under q7's call: no Python frame of the author's
            said = (str(e).strip().splitlines() or [""])[0]
            raise for_caller(
                ShapeFunctionError(
                    f"{self._where()}: the op's shape function (registered for it by NEURON_LIBRARY) raised "
                    f"{type(e).__name__}: {said}"
                )
            ) from e

    def __call__(self, *args):
        started = time.perf_counter()
        packed = self._marshal(args)
        dtype, shape = self._shape(args)
        out_dtype = SUPPORTED_DTYPES.get(dtype)
        if out_dtype is None:
            raise for_caller(
                TypeError(f"{self._where()}: the shape function returns dtype {dtype}, which the device does not take")
            )
        opts = {**self.options, **_OVERRIDES.get()}
        call = _debug._Call(self, packed, out_dtype, shape, opts)
        _debug.maybe_debug(call)
        result = self.compute.run(
            self.compute_fn,
            packed,
            out_dtype,
            list(shape),
            opts["max_instructions"],
            bool(_PROFILERS),
            checks=opts["checks"],
            sdk_checks=not opts["no_sdk_checks"],
            threads=opts.get("threads"),
        )
        stdout = result["stdout"].decode("utf-8", "replace")
        stderr = result["stderr"].decode("utf-8", "replace")
        dropped = result["console_dropped"]
        failure = result["failure"]
        if failure is None and result["unwritten"] and opts["strict"]:
            failure = {
                "reason": result["unwritten"],
                "kind": "output",
                "details": [],
                "core": None,
                "frames": [],
                "op_frame": None,
            }
        if failure is not None:
            # The line the reason quotes is printed once: in the message.
            _echo(stdout, _without_line(stderr, failure.get("quoted_line")))
            _debug.remember_failure(call, failure["kind"])
            raise self._error(failure, stdout, stderr, dropped)
        _echo(stdout, stderr)
        if dropped:
            warnings.warn(f"{self._where()}: {_dropped_note(dropped)}", ConsoleOutputWarning, stacklevel=2)
        if result["unwritten"]:
            warnings.warn(f"{self._where()}: {result['unwritten']}", UnwrittenOutputWarning, stacklevel=2)
        report = result["profile"]
        record = None if report is None else {"op": self.qualified, "profile": json.loads(report.json)}
        out = _as_tensor(result["output"], dtype, shape)
        with _STATE_LOCK:
            if record is not None:
                for p in _PROFILERS:
                    p.calls.append(record)
                    p._reports.append(report)
            s = self.stats
            s.calls += 1
            s.instructions += result["instructions"]
            s.simulated_seconds += result["simulated_seconds"]
            s.total_seconds += time.perf_counter() - started
        return out

    def _file(self, name):
        """A frame's file (DWARF keeps the name): the compute source of that name, when one is."""
        paths = self.sources.get(name, [])
        return paths[0] if len(paths) == 1 else name

    def _error(self, failure, stdout, stderr, dropped):
        """The SimulationError of a failed run: the reason, then the op, then the rest."""
        frames = [
            Frame(function, None if file is None else self._file(file), line, pc, offset, in_sdk)
            for function, offset, file, line, pc, in_sdk in failure["frames"]
        ]
        at = failure["op_frame"]
        lines = [failure["reason"], f"op {self._where()}"] + list(failure["details"])
        if dropped:
            lines.append(f"({_dropped_note(dropped)})")
        error = SimulationError(
            "\n".join(lines),
            reason=failure["reason"],
            op=self.qualified,
            compute_function=self.compute_fn,
            cores=self.compute.cores,
            core=failure["core"],
            frames=frames,
            op_frame=None if at is None else frames[at],
            stdout=stdout,
            stderr=stderr,
        )
        note = _stack_note(frames, at, failure["core"])
        if note is not None:
            if hasattr(error, "add_note"):
                error.add_note(note)
            else:  # before Python 3.11, tracebacks print no notes
                error.args = (f"{error.args[0]}\n{note}",)
        return for_caller(error)


def _stack_note(frames, at, core):
    """The op's part of a simulated call stack (innermost first) as a
    traceback lists it: most recent call last, from the op's outermost
    frame to `at`, the SDK frames inside it folded into one line. None
    without an op frame."""
    if at is None:
        return None
    if frames[at].file is None:
        return f"simulated core {core}: in {frames[at]} (build with extra_cflags=['-g'] for the op's source lines)"
    own = []
    for f in frames[at:]:
        if f.in_sdk:
            break  # the wrapper that called the op
        own.append(f)
    lines = [f"simulated call stack of core {core} (most recent call last):"]
    for f in reversed(own):
        if f.file is None:
            lines.append(f"  in {f}")
        else:
            lines.append(f'  File "{f.file}", line {f.line}, in {f.function}')
    inner = [_short(f.function) if f.function else f"{f.pc:#010x}" for f in frames[:at]]
    if inner:
        lines.append(f"  in q7's SDK: {' -> '.join(reversed(inner))}")
    return "\n".join(lines)


def _short(function):
    """A demangled name without its parameter list ("at::f(int) const" -> "at::f")."""
    depth = 0
    for i in range(len(function) - 1, -1, -1):
        if function[i] == ")":
            depth += 1
        elif function[i] == "(":
            depth -= 1
            if depth == 0:
                return function[:i]
    return function


def _without_line(text, line):
    """`text` without the last line that is `line` (None: `text`)."""
    if not line:
        return text
    lines = text.splitlines(keepends=True)
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip("\n") == line:
            del lines[i]
            break
    return "".join(lines)


def _as_tensor(output, dtype, shape):
    """A tensor of `dtype` and `shape` over `output`, a bytearray only this
    tensor holds (torch keeps it alive), without copying it."""
    if not output:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(output, dtype=dtype).view(shape)


def _echo(stdout, stderr):
    """The cores' console output (already prefixed with the core id)."""
    if stdout:
        sys.stdout.write(stdout)
    if stderr:
        sys.stderr.write(stderr)


# Per namespace, the torch.library.Library that holds q7's CPU kernels, and
# per op, what the kernel currently runs (a later load re-binds it).
_LIBRARIES = {}
_BOUND = {}


def bind(ns, op, bound):
    """Makes torch.ops.<ns>.<op> run `bound` on CPU tensors, and check (and
    refuse) every other kind of argument."""
    qualified = f"{ns}::{op}"
    with _STATE_LOCK:
        _bind_locked(ns, op, qualified, bound)


def _bind_locked(ns, op, qualified, bound):
    first = qualified not in _BOUND
    _BOUND[qualified] = bound
    if first:
        library = _LIBRARIES.get(ns)
        if library is None:
            library = _LIBRARIES[ns] = torch.library.Library(ns, "IMPL")

        def call(*args):
            return _BOUND[qualified](*args)

        # Native: an error for the caller leaves without q7's frames.
        kernel = _q7.Kernel(call)
        library.impl(op, kernel, "CPU")
        # Every other dispatch key (meta, sparse, an undefined tensor for
        # None) ran the shape function, which answers with an empty tensor:
        # replace that catch-all too, so the call reaches the checks in
        # BoundOp. torch warns that it overrides register.h's kernel; meant.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            library.impl(op, kernel, "CompositeImplicitAutograd")
