# Builds librelu.so (eight per-core images) here, as the Neuron tutorial does. On a machine without
# Trainium: `python -m q7.neuronx build.py` (torch_neuronx's custom_op is q7's).
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name="relu",
    compute_srcs=["relu.cpp"],
    shape_srcs=["shape.cpp"],
    build_directory=os.getcwd(),
    multicore=True,
    verbose=True,
)
