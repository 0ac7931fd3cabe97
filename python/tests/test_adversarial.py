"""What a hostile environment or careless input must not do (issue #26):
overwrite files through planted symlinks, write outside the cache, kill the
interpreter, or compute on tensors q7 cannot read."""

import os
import stat
import tempfile

import pytest

from q7 import _archive, custom_op

OPS = os.path.join(os.path.dirname(__file__), "ops")
IS_ROOT = os.geteuid() == 0
NOBODY = 65534


def _load(**kwargs):
    return custom_op.load(
        name="q7_test_ops",
        compute_srcs=[os.path.join(OPS, "ops.cpp")],
        shape_srcs=[os.path.join(OPS, "shape.cpp")],
        **kwargs,
    )


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _plant(directory, victim):
    """What another local user leaves where a build will write: a directory
    anyone may write, holding symlinks named like the build's outputs."""
    os.makedirs(directory, exist_ok=True)
    for out in ("ops.s", "ops.ll", "ops.d", "ops.o.tmp", "wrapper.s", "wrapper.d", "libq7_test_ops.so"):
        os.symlink(victim, os.path.join(directory, out))
    os.chmod(directory, 0o777)


def test_default_build_directory_is_private_to_the_user(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    per_user = tmp_path / f"q7_custom_op-{os.getuid()}"
    _plant(str(tmp_path / "q7_custom_op" / "q7_test_ops"), victim)  # the old, shared default
    _plant(str(per_user / "q7_test_ops"), victim)
    os.chmod(per_user, 0o777)
    with pytest.raises(PermissionError, match=rf"^{per_user}: build directory is writable by its group and others"):
        _load()
    os.chmod(per_user, 0o700)
    with pytest.raises(PermissionError, match=rf"^{per_user}/q7_test_ops: build directory is writable by"):
        _load()
    if IS_ROOT:  # only root can give a directory to another user
        os.chown(per_user, NOBODY, NOBODY)
        with pytest.raises(PermissionError, match=rf"^{per_user}: build directory is owned by uid {NOBODY}"):
            _load()
    assert victim.read_text() == "precious"

    for entry in (per_user / "q7_test_ops").iterdir():
        entry.unlink()
    os.rmdir(per_user / "q7_test_ops")
    os.rmdir(per_user)
    archive = _load()
    assert archive == str(per_user / "q7_test_ops" / "libq7_test_ops.so")
    assert _mode(per_user) == _mode(per_user / "q7_test_ops") == 0o700
    assert victim.read_text() == "precious"


def test_a_build_directory_others_can_write_is_refused_untouched(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(PermissionError, match=rf"^{shared}: build directory is writable by its group and others \(mode 0777\)"):
        _load(build_directory=str(shared))
    assert os.listdir(shared) == []


def test_archives_are_written_anew_not_through_a_planted_file(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    archive = tmp_path / "libx.so"
    # The temporary names a predictable writer would use.
    for name in (f"libx.so.tmp{os.getpid()}", "libx.so.tmp", ".libx.so.tmp"):
        os.symlink(victim, tmp_path / name)
    _archive.write(str(archive), [("metadata.json", b"{}")])
    assert _archive.read(str(archive)) == [("metadata.json", b"{}")]
    assert victim.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.is_symlink()) == ["libx.so", "victim.txt"]
