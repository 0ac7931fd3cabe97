"""q7: build and run AWS Neuron GPSIMD custom ops from PyTorch, on CPU.

`q7.custom_op` is a drop-in for `torch_neuronx.xla_impl.custom_op`: it builds
an op author's shape sources for the host and compute sources with q7,
and makes `torch.ops.<ns>.<op>` run the compute function in q7's simulator.
`python -m q7.neuronx SCRIPT` runs an unmodified Neuron script that way.
"""

from q7._errors import (
    BuildError,
    ConsoleOutputWarning,
    Frame,
    ShapeFunctionError,
    SimulationError,
    UnwrittenOutputWarning,
)

from q7 import custom_op
from q7._debug import debug, pm
from q7._runtime import options, profile, stats

__all__ = [
    "BuildError",
    "ConsoleOutputWarning",
    "Frame",
    "ShapeFunctionError",
    "SimulationError",
    "UnwrittenOutputWarning",
    "custom_op",
    "debug",
    "options",
    "pm",
    "profile",
    "stats",
]
