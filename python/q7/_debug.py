"""`q7.pm()` and `q7.debug()`: `q7 debug`'s debugger over an op call made
from Python. The session is the CLI's (the same commands, answers and
engine, crates/q7-debug); here are only the ways in: the last call that
raised q7.SimulationError, replayed from the same inputs, or the N-th call
inside a `with` block, stopped at its first instruction."""

import contextlib
import contextvars
import sys
import threading
import warnings

# What pm() opens on: after `continue` stops at the failure (a finding, a
# failed SDK check or abort, a fault), the op's own frame and its locals. A
# finding stops after the instruction that made it: one back is that
# instruction, on the failing line.
PM_COMMANDS = ("continue", "frame op", "info args", "info locals")
PM_FINDING_COMMANDS = ("continue", "reverse-stepi", "frame op", "info args", "info locals")

_last_failed = None
_last_failed_lock = threading.Lock()


class _Call:
    """One op call as the simulator ran it: enough to run it again."""

    def __init__(self, bound, packed, dtype, shape, options):
        self.bound = bound
        self.packed = packed
        self.dtype = dtype
        self.shape = shape
        self.options = options

    def open(self, commands, first, break_on_finding, out):
        """A debugger session over this call: `first` commands, then
        `commands` (each echoed after the prompt) or, when None, the prompt's."""
        bound = self.bound
        print(
            f"q7 debug: {bound._where()}, from its first instruction; `help` lists the commands, `quit` returns",
            file=out,
        )
        script = None if commands is None else [str(c) for c in commands]
        failure = bound.compute.debug(
            bound.compute_fn,
            self.packed,
            self.dtype,
            list(self.shape),
            self.options["max_instructions"],
            self.options["checks"],
            not self.options["no_sdk_checks"],
            break_on_finding,
            list(first) + (script or []),
            (lambda: None) if script is not None else _ask,
            lambda text: (out.write(text), out.flush()),
        )
        if failure is not None:
            raise RuntimeError(f"{bound._where()}: the debugger could not start the call: {failure['reason']}")


    def serve_dap(self, port, break_on_finding, out):
        """This call over the Debug Adapter Protocol, to the first client
        that connects to 127.0.0.1:`port` (0: a free one)."""
        bound = self.bound

        def listening(port):
            print(
                f"q7 debug: {bound._where()}: waiting for a DAP client on 127.0.0.1:{port} "
                "(attach or launch; the op and its arguments are this call's)",
                file=out,
                flush=True,
            )

        bound.compute.debug_dap(
            bound.compute_fn,
            self.packed,
            self.dtype,
            list(self.shape),
            self.options["max_instructions"],
            self.options["checks"],
            not self.options["no_sdk_checks"],
            break_on_finding,
            port,
            listening,
        )


def _ask():
    """The next command line from the prompt (None at end of input)."""
    while True:
        try:
            return input("(q7) ")
        except EOFError:
            return None
        except KeyboardInterrupt:
            # As at gdb's prompt: Ctrl-C drops the line, the session goes on.
            print()


def remember_failure(call, kind):
    """Keeps `call`, which raised q7.SimulationError for a failure of `kind`
    (engine::Failure::kind), for pm()."""
    global _last_failed
    with _last_failed_lock:
        _last_failed = (call, kind)


def pm(commands=None, out=None):
    """Open q7's debugger on the last op call that raised q7.SimulationError,
    as pdb.pm() does for Python: the call runs again from the same inputs
    (the simulator is deterministic) and stops at the failure, in the op's own
    frame, its locals printed. Then the prompt (`help` lists the commands);
    `quit` or end of input returns. `commands`, a list of command lines, runs
    those instead of a prompt (for scripts and notebooks). `out`: where the
    session is written (sys.stdout)."""
    with _last_failed_lock:
        last = _last_failed
    if last is None:
        raise RuntimeError("q7.pm(): no op call has raised q7.SimulationError in this process")
    call, kind = last
    first = PM_FINDING_COMMANDS if kind == "finding" else PM_COMMANDS
    call.open(commands, first, True, out or sys.stdout)


class _Request:
    def __init__(self, call, op, commands, break_on_finding, out, dap):
        if not isinstance(call, int) or call < 1:
            raise ValueError(f"q7.debug(): call must be a positive int (1: the first call), got {call!r}")
        if dap is not None and (isinstance(dap, bool) or not isinstance(dap, int) or not 0 <= dap <= 65535):
            raise ValueError(f"q7.debug(): dap must be a TCP port number (0: any free port), got {dap!r}")
        if dap is not None and commands is not None:
            raise ValueError("q7.debug(): give commands or dap, not both")
        self.dap = dap
        self.call = call
        self.op = op
        self.commands = commands
        self.break_on_finding = break_on_finding
        self.out = out
        self.seen = 0
        self.opened = False


_REQUEST = contextvars.ContextVar("q7_debug", default=None)


@contextlib.contextmanager
def debug(call=1, op=None, commands=None, break_on_finding=True, out=None, dap=None):
    """Run the `call`-th q7 op call made inside the block (counting only calls
    of `op`, "ns::name", when given) under q7's debugger, stopped at its first
    instruction: set breakpoints, continue, step, print, go backwards. When
    the session ends (`quit` or end of input) the call runs as usual and
    returns its result, so the script goes on. `commands`: a list of command
    lines run instead of a prompt. `break_on_finding`: `continue` also stops
    at findings and failed checks. `dap=PORT`: instead of a prompt, serve
    the Debug Adapter Protocol for that call on 127.0.0.1:PORT (0: a free
    port, printed), so an editor can attach to the script and stop inside
    the op."""
    request = _Request(call, op, commands, break_on_finding, out, dap)
    token = _REQUEST.set(request)
    try:
        yield request
    finally:
        _REQUEST.reset(token)
    if not request.opened:
        calls = f"{request.seen} call{'' if request.seen == 1 else 's'}" + (f" of {op}" if op else "")
        warnings.warn(f"q7.debug(call={call}): the block made {calls}; nothing was debugged", stacklevel=3)


def maybe_debug(call):
    """Called by every op call before it runs: opens the session when this
    is the call the enclosing `with q7.debug(...)` asked for."""
    request = _REQUEST.get()
    if request is None or request.opened:
        return
    if request.op is not None and request.op != call.bound.qualified:
        return
    request.seen += 1
    if request.seen == request.call:
        request.opened = True
        out = request.out or sys.stdout
        if request.dap is not None:
            call.serve_dap(request.dap, request.break_on_finding, out)
        else:
            call.open(request.commands, (), request.break_on_finding, out)
