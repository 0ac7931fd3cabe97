"""What a hostile environment or careless input must not do (issue #26):
overwrite files through planted symlinks, write outside the cache, kill the
interpreter, or compute on tensors q7 cannot read."""

import json
import os
import re
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


def _metadata(shape="libx_shape.so", compute=("libxcustomop.so",)):
    return {
        "format": "q7-neuron-custom-op",
        "version": 1,
        "name": "x",
        "shape_library": shape,
        "compute_libraries": list(compute),
        "ops": [{"name": "x_ns::op", "compute_function": "op", "index": 0}],
    }


@pytest.mark.parametrize("where", ["relative", "absolute"])
@pytest.mark.parametrize("exists", [False, True], ids=["new", "existing"])
def test_an_archive_cannot_write_or_load_a_file_outside_the_cache(tmp_path, monkeypatch, where, exists):
    monkeypatch.setenv("Q7_CACHE_DIR", str(tmp_path / "cache"))
    escaped = tmp_path / "escaped_shape.so"
    if exists:
        escaped.write_bytes(b"not a library; must not be dlopened")
    # cache/loaded/<digest>/../../../ is tmp_path
    name = "../../../escaped_shape.so" if where == "relative" else str(escaped)
    archive = tmp_path / "libevil.so"
    metadata = json.dumps(_metadata(shape=name)).encode()
    _archive.write(str(archive), [(name, b"\x7fELF"), ("libxcustomop.so", b""), ("metadata.json", metadata)])
    with pytest.raises(ValueError, match=rf"^{archive}: member '{re.escape(name)}' is not a plain file name; refusing the archive$"):
        custom_op.load_library(str(archive))
    # metadata.json naming such a member is refused by itself too.
    _archive.write(str(archive), [("libxcustomop.so", b""), ("metadata.json", metadata)])
    with pytest.raises(ValueError, match=rf"^{archive}: metadata.json names member '{re.escape(name)}', which is not a plain file name"):
        custom_op.load_library(str(archive))
    assert escaped.exists() == exists
    if exists:
        assert escaped.read_bytes() == b"not a library; must not be dlopened"
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("name", [".", "..", "sub/lib.so", "-rf", "lib\0.so", "/abs.so"])
def test_every_member_name_must_be_a_plain_file_name(tmp_path, name):
    archive = tmp_path / "libodd.so"
    members = [("libx_shape.so", b""), ("libxcustomop.so", b""), (name, b"x")]
    _archive.write(str(archive), members + [("metadata.json", json.dumps(_metadata()).encode())])
    with pytest.raises(ValueError, match=rf"^{archive}: member {re.escape(repr(name))} is not a plain file name"):
        custom_op.load_library(str(archive))


def test_metadata_compute_library_names_are_checked_too(tmp_path):
    archive = tmp_path / "libodd.so"
    metadata = _metadata(compute=["../libxcustomop.so"])
    _archive.write(str(archive), [("libx_shape.so", b""), ("metadata.json", json.dumps(metadata).encode())])
    with pytest.raises(ValueError, match=r"metadata.json names member '../libxcustomop.so', which is not a plain file name"):
        custom_op.load_library(str(archive))


def test_an_op_name_that_is_a_path_is_refused():
    with pytest.raises(ValueError, match=r"custom op name '../x' is not a plain file name"):
        custom_op.load(name="../x", compute_srcs=[], shape_srcs=[])
