"""Packaging and build reporting."""

import os
import shutil
import subprocess
import sys
import zipfile

import torch

from q7 import custom_op

from conftest import REPO


def test_maturin_builds_an_abi3_wheel_with_the_headers(tmp_path):
    maturin = shutil.which("maturin", path=os.path.dirname(sys.executable)) or shutil.which("maturin")
    assert maturin, "maturin is not installed (scripts/test.sh installs it into .venv)"
    # For this interpreter, as `maturin develop` built the extension: with
    # the same environment cargo finds it built and only the wheel is made.
    subprocess.run([maturin, "build", "--quiet", "-i", sys.executable, "-o", str(tmp_path)], cwd=REPO, check=True)
    (wheel,) = tmp_path.glob("q7-*.whl")
    assert "-cp39-abi3-" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "q7/_q7.abi3.so" in names
    assert "q7/include/torchneuron/register.h" in names
    assert "q7/custom_op.py" in names and "q7/neuronx.py" in names
    # The q7 command line, as a script of the package.
    assert "q7_cli/__init__.py" in names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "[console_scripts]\nq7=q7_cli:main\n" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_package_installs_the_q7_command_sharing_the_sdk_cache(tmp_path):
    # The script beside this interpreter (maturin develop installs it, as
    # pip does): the CLI, run in-process by the extension, without torch.
    q7 = shutil.which("q7", path=os.path.dirname(sys.executable))
    assert q7, "no q7 script beside this Python (reinstall the package)"
    version = subprocess.run([q7, "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("q7 "), version.stderr
    bad = subprocess.run([q7, "run", str(tmp_path / "absent"), "--fn", "f"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith(f"q7: error: {tmp_path}/absent"), bad.stderr
    # The device SDK the CLI prepares is the one Python's builds link.
    from q7 import _q7

    state = _q7.device_sdk()
    if state is not None:
        ready = subprocess.run([q7, "prepare"], capture_output=True, text=True)
        assert ready.returncode == 0 and ready.stdout == f"device SDK ready: {state[0]}\n", ready.stderr
    # The command does not import torch (nor the q7 package, which does).
    done = subprocess.run(
        [sys.executable, "-c", "import sys, q7_cli; q7_cli._extension(); print('torch' in sys.modules, 'q7' in sys.modules)"],
        capture_output=True,
        text=True,
    )
    assert done.stdout == "False False\n", done.stderr


def test_verbose_load_shows_the_build_steps(test_ops, tmp_path, capsys):
    ops = os.path.join(os.path.dirname(__file__), "ops")
    custom_op.load(
        name="q7_test_ops",
        compute_srcs=[os.path.join(ops, "ops.cpp")],
        shape_srcs=[os.path.join(ops, "shape.cpp")],
        build_directory=str(tmp_path),
        verbose=True,
    )
    out = capsys.readouterr().out
    assert "q7: shape library" in out
    assert "q7: op q7_test_ops::affine(Tensor _0, float _1, int _2, Scalar _3) -> Tensor, compute function affine" in out
    assert "clang-22" in out or "xt-clang++" in out  # the compile commands
    assert "q7 build: libq7_test_opscustomop.so" in out
    assert f"q7: wrote {tmp_path}/libq7_test_ops.so (the build's files are in {tmp_path}/.q7-build)\n" in out
    # The build directory gets the archive; everything else is in .q7-build.
    assert sorted(os.listdir(tmp_path)) == [".q7-build", "libq7_test_ops.so"]
    assert "libq7_test_opscustomop.so" in os.listdir(tmp_path / ".q7-build")
    # The re-load re-bound the ops to the new build; they still run.
    assert torch.equal(torch.ops.q7_test_ops.affine(torch.ones(2), 2.0, 1, 0), torch.full((2,), 3.0))


def test_a_load_prints_one_line_per_step_with_work_unless_quiet(tmp_path):
    # In a child, whose stderr is the load's alone: a first load, a second
    # with nothing to do, a quiet one, and after edits of the compute source.
    ops = os.path.join(os.path.dirname(__file__), "ops")
    compute = tmp_path / "ops.cpp"
    shutil.copy(os.path.join(ops, "ops.cpp"), compute)
    script = f"""
from q7 import custom_op
custom_op.load(name="q7_test_ops", compute_srcs=[{str(compute)!r}], shape_srcs=[{os.path.join(ops, "shape.cpp")!r}],
               build_directory={str(tmp_path / "b")!r})
"""

    def load(**env):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ, **env))
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()

    assert load() == [
        "q7: building the shape library (q7's host torch)",
        "q7: compiling the op for the device",
        "q7: linking the op's images",
    ]
    assert load() == []
    with open(compute, "a") as f:
        f.write("\n")
    assert load(Q7_QUIET="1") == []
    with open(compute, "a") as f:
        f.write("\nint q7_edited() { return 1; }\n")
    assert load() == ["q7: compiling the op for the device", "q7: linking the op's images"]
    with open(compute, "a") as f:
        f.write("// a comment: the same code, nothing to link\n")
    assert load() == ["q7: compiling the op for the device"]
