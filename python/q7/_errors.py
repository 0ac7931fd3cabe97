"""q7's exceptions and warnings. They live in the `q7` namespace (tracebacks
print `q7.SimulationError`, not the module that defines them)."""

from typing import NamedTuple, Optional


class Frame(NamedTuple):
    """One frame of a simulated call stack: the function (demangled; None
    when the image has no symbol there), the source file and line (of a
    `-g` build), the pc and its offset into the function, and whether the
    frame is q7's SDK or generated wrapper rather than the op's own code."""

    function: Optional[str]
    file: Optional[str]
    line: Optional[int]
    pc: int
    offset: Optional[int] = None
    in_sdk: bool = False

    def __str__(self):
        text = f"{self.pc:#010x}" if self.function is None else f"{self.function}+{self.offset or 0:#x}"
        if self.file is not None:
            text += f" at {self.file}:{self.line}"
        return text


class BuildError(Exception):
    """Building an op's compute sources failed."""


class SimulationError(Exception):
    """The simulator found a problem while running an op.

    The message is the reason (the first finding, a failed runtime check's
    own words, a fault), then the op, its compute function and cores, then
    what else the run found. Attributes:

    * `reason`: the message's first line;
    * `op` ("ns::op"), `compute_function`, `cores`; `core`, the core the
      reason is about (None when it is no one core's);
    * `frames`: the simulated call stack of the reason, a list of
      `q7.Frame`, innermost first (empty when the run has none, e.g. a bad
      argument); `op_frame`: the one of them that is the op's own code
      (its source line in a `-g` build), else None;
    * `stdout`, `stderr`: the cores' console output of the call (already
      printed, `[core N]`-prefixed).
    """

    def __init__(self, message, *, reason=None, op=None, compute_function=None, cores=None, core=None,
                 frames=(), op_frame=None, stdout="", stderr=""):
        super().__init__(message)
        self.reason = message.split("\n", 1)[0] if reason is None else reason
        self.op = op
        self.compute_function = compute_function
        self.cores = cores
        self.core = core
        self.frames = list(frames)
        self.op_frame = op_frame
        self.stdout = stdout
        self.stderr = stderr


class ShapeFunctionError(RuntimeError):
    """An op's shape function (the host function its NEURON_LIBRARY
    registered) raised; the original exception is the `__cause__`."""


class UnwrittenOutputWarning(UserWarning):
    """Some output elements were written by no core (they stay zero)."""


class ConsoleOutputWarning(UserWarning):
    """The cores printed more than q7 keeps: the rest of their console output was dropped."""


for _class in (Frame, BuildError, SimulationError, ShapeFunctionError, UnwrittenOutputWarning, ConsoleOutputWarning):
    _class.__module__ = "q7"


def for_caller(exc):
    """Marks `exc` as an error in how the op was called or in what it did:
    q7's kernel drops q7's own frames from its traceback (`_q7.Kernel`)."""
    exc._q7_for_caller = True
    return exc
