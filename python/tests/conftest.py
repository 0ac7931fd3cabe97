"""Session-wide builds for the q7 Python suite.

Shape libraries take most of a minute each to compile against libtorch, so
every build happens once per session (and is cached across sessions under
target/q7-py-cache, keyed by the sources' contents)."""

import os
import shutil

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
os.environ.setdefault("Q7_CACHE_DIR", os.path.join(REPO, "target", "q7-py-cache"))

from q7 import custom_op  # noqa: E402  (after Q7_CACHE_DIR is set)


def _copy_project(src_dir, dst_dir, files):
    os.makedirs(dst_dir, exist_ok=True)
    for f in files:
        shutil.copy(os.path.join(src_dir, f), dst_dir)
    return dst_dir


@pytest.fixture(scope="session")
def mlp_project(tmp_path_factory):
    """examples/torch_mlp, built in a scratch copy by its own build.py."""
    from q7 import neuronx

    src = os.path.join(REPO, "examples", "torch_mlp")
    sources = [f for f in os.listdir(src) if f.endswith((".cpp", ".py"))]
    work = _copy_project(src, str(tmp_path_factory.mktemp("torch_mlp")), sources)
    here = os.getcwd()
    os.chdir(work)
    try:
        neuronx.main([os.path.join(work, "build.py")])
    finally:
        os.chdir(here)
    return work


def _build_test_ops(tmp_path_factory, multicore):
    ops = os.path.join(os.path.dirname(__file__), "ops")
    return custom_op.load(
        name="q7_test_ops",
        compute_srcs=[os.path.join(ops, "ops.cpp")],
        shape_srcs=[os.path.join(ops, "shape.cpp")],
        build_directory=str(tmp_path_factory.mktemp("test_ops_8" if multicore else "test_ops")),
        multicore=multicore,
    )


@pytest.fixture(scope="session")
def test_ops_archives(tmp_path_factory):
    """python/tests/ops built single-core and 8-core: {"single": archive, "multicore": archive}."""
    return {kind: _build_test_ops(tmp_path_factory, kind == "multicore") for kind in ("multicore", "single")}


@pytest.fixture
def test_ops(test_ops_archives):
    """torch.ops.q7_test_ops bound to the single-core build; returns its archive."""
    custom_op.load_library(test_ops_archives["single"])
    return test_ops_archives["single"]


@pytest.fixture
def test_ops_8(test_ops_archives):
    """torch.ops.q7_test_ops bound to the 8-core build; returns its archive."""
    custom_op.load_library(test_ops_archives["multicore"])
    return test_ops_archives["multicore"]


@pytest.fixture(scope="session")
def findings_archive(tmp_path_factory):
    """python/tests/ops/findings.cpp (planted bugs) built with -g, single core."""
    ops = os.path.join(os.path.dirname(__file__), "ops")
    return custom_op.load(
        name="q7_findings",
        compute_srcs=[os.path.join(ops, "findings.cpp")],
        shape_srcs=[os.path.join(ops, "findings_shape.cpp")],
        extra_cflags=["-g"],
        build_directory=str(tmp_path_factory.mktemp("findings")),
    )


@pytest.fixture
def findings(findings_archive):
    """torch.ops.q7_findings bound with the default options; returns the archive."""
    custom_op.load_library(findings_archive)
    return findings_archive


@pytest.fixture(scope="session")
def tcm_relu_builds(tmp_path_factory):
    """examples/torch_mlp_multicore's relu built single-core and 8-core; returns
    a function that binds one of them ("single" or "multicore") to torch.ops.my_tcm_ops
    and returns its archive."""
    src = os.path.join(REPO, "examples", "torch_mlp_multicore")
    archives = {}
    for kind in ("single", "multicore"):
        archives[kind] = custom_op.load(
            name="relu_tcm",
            compute_srcs=[os.path.join(src, "relu.cpp")],
            shape_srcs=[os.path.join(src, "shape.cpp")],
            build_directory=str(tmp_path_factory.mktemp(f"relu_tcm_{kind}")),
            multicore=kind == "multicore",
        )

    def bind(kind):
        custom_op.load_library(archives[kind])
        return archives[kind]

    return bind
