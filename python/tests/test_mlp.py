"""The example project, run as a Neuron user runs it: build.py, then training."""

import hashlib
import json
import os
import subprocess
import sys

import torch

import q7

from conftest import REPO


def _import_example(project):
    if project not in sys.path:
        sys.path.insert(0, project)
    import model
    import my_ops

    return model, my_ops


def test_training_losses_equal_torch_relu_bit_for_bit(mlp_project):
    model, my_ops = _import_example(mlp_project)
    before = q7.stats("my_ops::relu_forward")["calls"], q7.stats("my_ops::relu_backward")["calls"]
    steps = 4
    custom = model.train(my_ops.Relu.apply, steps)
    reference = model.train(torch.relu, steps)
    assert custom == reference
    after = q7.stats("my_ops::relu_forward")["calls"], q7.stats("my_ops::relu_backward")["calls"]
    # Two hidden layers: two relu calls forward and two backward per step.
    assert after[0] - before[0] == 2 * steps
    assert after[1] - before[1] == 2 * steps


def test_archive_members_and_metadata(mlp_project):
    archive = os.path.join(mlp_project, "librelu.so")
    listed = subprocess.run(["ar", "t", archive], check=True, capture_output=True, text=True).stdout.split()
    assert listed == ["librelu_shape.so", "librelucustomop.so", "metadata.json"]
    metadata = json.loads(subprocess.run(["ar", "p", archive, "metadata.json"], check=True, capture_output=True).stdout)
    assert metadata["format"] == "q7-neuron-custom-op" and metadata["version"] == 1
    assert metadata["name"] == "relu" and metadata["multicore"] is False and metadata["cores"] == 1
    assert metadata["shape_library"] == "librelu_shape.so"
    assert metadata["compute_libraries"] == ["librelucustomop.so"]
    ops = {op["name"]: op for op in metadata["ops"]}
    assert ops["my_ops::relu_forward"]["schema"] == "my_ops::relu_forward(Tensor _0) -> Tensor _0"
    assert ops["my_ops::relu_backward"]["device_schema"] == "my_ops::relu_backward(Tensor _0, Tensor _1) -> Tensor"
    assert [ops[n]["index"] for n in ("my_ops::relu_forward", "my_ops::relu_backward")] == [0, 1]
    # The members are what they claim: a host ELF64 library and an Xtensa image.
    shape = subprocess.run(["ar", "p", archive, "librelu_shape.so"], check=True, capture_output=True).stdout
    compute = subprocess.run(["ar", "p", archive, "librelucustomop.so"], check=True, capture_output=True).stdout
    assert shape[:5] == b"\x7fELF\x02" and compute[:5] == b"\x7fELF\x01"
    assert int.from_bytes(compute[18:20], "little") == 94  # EM_XTENSA
    with open(os.path.join(mlp_project, ".q7-build", "librelucustomop.so"), "rb") as f:
        assert f.read() == compute
    # Each library member's SHA-256, which load_library checks before loading anything.
    assert metadata["sha256"] == {
        "librelu_shape.so": hashlib.sha256(shape).hexdigest(),
        "librelucustomop.so": hashlib.sha256(compute).hexdigest(),
    }


def test_the_project_folder_gets_only_the_archive(mlp_project):
    # build.py passes build_directory=os.getcwd(): beside the sources land
    # the archive (what the vendor's flow shows) and the build's own folder.
    src = os.path.join(REPO, "examples", "torch_mlp")
    sources = [f for f in os.listdir(src) if f.endswith((".cpp", ".py"))]
    listed = sorted(f for f in os.listdir(mlp_project) if f != "__pycache__")
    assert listed == sorted(sources + [".q7-build", "librelu.so"])
    inner = os.listdir(os.path.join(mlp_project, ".q7-build"))
    assert "librelucustomop.so" in inner and "wrapper.cpp" in inner


LOAD_IN_FRESH_PROCESS = """
import sys, torch
from q7 import custom_op
custom_op.load_library(sys.argv[1])
print(torch._C._get_schema("my_ops::relu_forward", ""))
x = torch.load(sys.argv[2])
torch.save((torch.ops.my_ops.relu_forward(x), torch.ops.my_ops.relu_backward(x * 3, x)), sys.argv[3])
"""


def test_load_library_in_a_new_process_gives_the_same_outputs(mlp_project, tmp_path):
    _, my_ops = _import_example(mlp_project)
    x = torch.randn(7, 5)
    torch.save(x, tmp_path / "x.pt")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    result = subprocess.run(
        [sys.executable, "-c", LOAD_IN_FRESH_PROCESS, os.path.join(mlp_project, "librelu.so"),
         str(tmp_path / "x.pt"), str(tmp_path / "y.pt")],
        capture_output=True, text=True, env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "my_ops::relu_forward(Tensor _0) -> Tensor _0"
    forward, backward = torch.load(tmp_path / "y.pt")
    assert torch.equal(forward, torch.ops.my_ops.relu_forward(x))
    assert torch.equal(forward, torch.relu(x))
    assert torch.equal(backward, torch.where(x > 0, x * 3, torch.zeros_like(x)))


def test_unmodified_script_touching_other_torch_neuronx_fails_clearly(tmp_path):
    script = tmp_path / "trace.py"
    script.write_text("import torch_neuronx\ntorch_neuronx.trace(None, None)\n")
    result = subprocess.run([sys.executable, "-m", "q7.neuronx", str(script)], capture_output=True, text=True)
    assert result.returncode != 0
    assert "torch_neuronx.trace is not provided by q7" in result.stderr
    assert "torch_neuronx.xla_impl.custom_op" in result.stderr


def test_unmodified_script_importing_other_torch_neuronx_modules_fails_clearly(tmp_path):
    script = tmp_path / "parallel.py"
    script.write_text("from torch_neuronx.xla_impl import custom_op\nimport torch_neuronx.distributed\n")
    result = subprocess.run([sys.executable, "-m", "q7.neuronx", str(script)], capture_output=True, text=True)
    assert result.returncode != 0
    assert "ModuleNotFoundError: torch_neuronx.distributed is not provided by q7" in result.stderr


def test_importing_torch_xla_under_q7_neuronx_says_how_to_run_on_cpu(tmp_path):
    from q7 import neuronx

    script = tmp_path / "train.py"
    script.write_text("import torch\nimport torch_xla.core.xla_model as xm\ndevice = xm.xla_device()\n")
    result = subprocess.run([sys.executable, "-m", "q7.neuronx", str(script)], capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stderr.splitlines()[-1] == f"ModuleNotFoundError: {neuronx.NO_XLA}"
    assert "CPU tensors" in neuronx.NO_XLA and "torch.device('cpu') for xm.xla_device()" in neuronx.NO_XLA
