"""Shape sources built against q7's host torch (sdk/host), not libtorch:
the schemas torch sees, the shape function's answers and errors through the
C ABI, and the fall back to libtorch for what the host torch lacks."""

import glob
import json
import os
import subprocess
import sys

import pytest
import torch

import q7
from q7 import _host_shape, custom_op

from conftest import REPO

OPS = os.path.join(os.path.dirname(__file__), "ops")

# Every shape source of the repository and the suite, with the name its
# libtorch build has elsewhere in the suite (the cache key holds the name).
SHAPE_SOURCES = {
    "examples/torch_mlp/shape.cpp": "relu",
    "examples/torch_mlp_multicore/shape.cpp": "relu_tcm",
    "python/tests/ops/shape.cpp": "q7_test_ops",
    "python/tests/ops/findings_shape.cpp": "q7_findings",
}


def test_the_list_of_shape_sources_is_complete():
    found = {
        os.path.relpath(path, REPO)
        for pattern in ("examples/*/*.cpp", "python/tests/ops/*.cpp")
        for path in glob.glob(os.path.join(REPO, pattern))
        if "NEURON_LIBRARY(" in open(path).read()
    }
    assert found == set(SHAPE_SOURCES) | {"python/tests/ops/libtorch_shape.cpp"}


# Prints the schemas torch has for the ops of one shape source, built one
# way or the other, in a process of its own (one namespace per process).
SCHEMAS = """
import json, sys, torch
from q7 import _host_shape, _shape, custom_op
kind, name, source, build = sys.argv[1:5]
if kind == "host":
    path = _host_shape.build(name, [source], [], [], build)
    library = custom_op._load_host_shape(path, open(path, "rb").read(), path)
    names = [ns + "::" + op for ns, op, _, _ in library.ops]
else:
    path = _shape.build(name, [source], [], [])
    torch.ops.load_library(path)
    names = [qualified for qualified, _ in custom_op._registered_ops(path)]
print(json.dumps([str(torch._C._get_schema(q, "")) for q in names]))
"""


def _schemas(kind, name, source, build):
    done = subprocess.run(
        [sys.executable, "-c", SCHEMAS, kind, name, source, build], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("source", sorted(SHAPE_SOURCES))
def test_schemas_from_the_host_torch_equal_libtorchs_inference(source, tmp_path):
    name = SHAPE_SOURCES[source]
    path = os.path.join(REPO, source)
    ours = _schemas("host", name, path, str(tmp_path))
    theirs = _schemas("libtorch", name, path, str(tmp_path))
    assert ours and ours == theirs


def test_a_shape_source_the_host_torch_cannot_build_falls_back_to_libtorch(tmp_path, capfd):
    archive = custom_op.load(
        name="q7_libtorch_ops",
        compute_srcs=[os.path.join(OPS, "ops.cpp")],
        shape_srcs=[os.path.join(OPS, "libtorch_shape.cpp")],
        build_directory=str(tmp_path),
    )
    note = [line for line in capfd.readouterr().err.splitlines() if "libtorch instead" in line]
    assert len(note) == 1
    assert note[0].startswith("q7: libtorch_shape.cpp:7: q7's host torch cannot build this: ")
    assert "new_empty" in note[0] and note[0].endswith("; building the shape library against libtorch instead")
    from q7 import _archive

    metadata = json.loads(dict(_archive.read(archive))["metadata.json"])
    assert metadata["shape_abi"] == "libtorch"
    x = torch.arange(6, dtype=torch.int16).reshape(2, 3)
    assert torch.equal(torch.ops.q7_libtorch_ops.copy_bytes(x), x)


def test_the_shape_function_answers_through_the_c_abi(test_ops):
    bound = custom_op._runtime._BOUND["q7_test_ops::affine"]
    assert bound.shape((torch.ones(2, 3, dtype=torch.int8), 1.5, 2, 3)) == (torch.float32, (2, 3))
    assert bound.shape((torch.ones(()), 1.5, 2, 2.5)) == (torch.float32, ())
    copy = custom_op._runtime._BOUND["q7_test_ops::copy_bytes"]
    assert copy.shape((torch.zeros(4, 0, 1, 2, 1, 1, 1, 5, dtype=torch.bfloat16),)) == (
        torch.bfloat16,
        (4, 0, 1, 2, 1, 1, 1, 5),
    )
    metadata = json.loads(dict(q7._archive.read(test_ops))["metadata.json"])
    assert metadata["shape_abi"] == "q7-host" and metadata["torch_version"] == torch.__version__


def test_an_archive_with_a_host_shape_library_loads_under_another_torch(test_ops_archives, tmp_path):
    # Nothing of a host shape library depends on torch: the version recorded
    # is not a reason to refuse it (a libtorch one is refused, see test_adversarial).
    from q7 import _archive

    members = _archive.read(test_ops_archives["single"])
    metadata = json.loads(dict(members)["metadata.json"])
    metadata["torch_version"] = "2.15.0"
    metadata["torch_cxx11_abi"] = not metadata["torch_cxx11_abi"]
    other = str(tmp_path / "libq7_test_ops.so")
    _archive.write(other, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    custom_op.load_library(other)
    x = torch.arange(5.0)
    assert torch.equal(torch.ops.q7_test_ops.copy_bytes(x), x)
    metadata["torch_cxx11_abi"] = "1"
    _archive.write(other, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    with pytest.raises(ValueError, match=r"metadata.json: torch_cxx11_abi is not true or false"):
        custom_op.load_library(other)
    metadata["torch_cxx11_abi"] = True
    metadata["shape_abi"] = "q7-host-9"
    _archive.write(other, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    with pytest.raises(ValueError, match=r"shape_abi 'q7-host-9' is neither libtorch nor q7-host"):
        custom_op.load_library(other)
