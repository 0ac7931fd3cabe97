"""What a hostile environment or careless input must not do (issue #26):
overwrite files through planted symlinks, write outside the cache, kill the
interpreter, compute on tensors q7 cannot read, pass raw addresses between
Python and Rust, drop console output silently, or ignore Ctrl-C."""

import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
import warnings

import pytest
import torch

import q7
from q7 import _archive, _host_shape, _shape, custom_op

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


@pytest.fixture(scope="session")
def edited_shape(tmp_path_factory):
    """python/tests/ops/shape.cpp edited (a comment): the same ops and
    namespace, a different shape library."""
    src = tmp_path_factory.mktemp("edited") / "shape.cpp"
    with open(os.path.join(OPS, "shape.cpp")) as f:
        src.write_text(f.read() + "\n// edited: the same ops, other bytes\n")
    return str(src)


def _with_shape_member(archive, library, other, shape_abi):
    """A copy of `archive` at `other` holding the shape library at `library` (of `shape_abi`)."""
    members = _archive.read(archive)
    metadata = json.loads(dict(members)["metadata.json"])
    with open(library, "rb") as f:
        replacement = f.read()
    metadata["sha256"][metadata["shape_library"]] = hashlib.sha256(replacement).hexdigest()
    metadata["shape_abi"] = shape_abi
    replaced = {metadata["shape_library"]: replacement, "metadata.json": json.dumps(metadata).encode()}
    _archive.write(other, [(n, replaced.get(n, d)) for n, d in members])
    return other


def test_a_namespace_registered_twice_raises_and_the_process_lives_on(test_ops_archives, edited_shape, tmp_path):
    # Archives like the suite's holding another shape library of the same
    # namespace: one built against libtorch (torch would abort the process
    # on its TORCH_LIBRARY), one of q7's host torch whose op has another
    # schema. The builds run in children: nothing loads here.
    first = test_ops_archives["single"]
    libtorch_library = _shape.build("q7_test_ops", [os.path.join(OPS, "shape.cpp")], [], [])
    libtorch = _with_shape_member(first, libtorch_library, str(tmp_path / "libq7_test_ops_libtorch.so"), "libtorch")
    changed_src = tmp_path / "changed.cpp"
    with open(os.path.join(OPS, "shape.cpp")) as f:
        changed_src.write_text(f.read().replace("print_lines_shape(torch::Tensor t_in, int64_t lines)", "print_lines_shape(torch::Tensor t_in, double lines)"))
    changed_library = _host_shape.build("q7_test_ops", [str(changed_src)], [], [], str(tmp_path / "changed"))
    changed = _with_shape_member(first, changed_library, str(tmp_path / "libq7_test_ops_changed.so"), "q7-host")
    broken = tmp_path / "broken.cpp"
    broken.write_text("this is not C++\n")
    shape, ops = os.path.join(OPS, "shape.cpp"), os.path.join(OPS, "ops.cpp")
    # torch aborted the interpreter here before: run the session in a child.
    script = f"""
import json, torch
from q7 import custom_op
def attempt(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
def load(shape, compute, d):
    custom_op.load(name="q7_test_ops", compute_srcs=[compute], shape_srcs=[shape], build_directory=d)
out = {{}}
out["first"] = attempt(lambda: custom_op.load_library({first!r}))
out["libtorch"] = attempt(lambda: custom_op.load_library({libtorch!r}))
out["changed"] = attempt(lambda: custom_op.load_library({changed!r}))
out["edited"] = attempt(lambda: load({edited_shape!r}, {ops!r}, {str(tmp_path / "b1")!r}))
out["broken"] = attempt(lambda: load({shape!r}, {str(broken)!r}, {str(tmp_path / "b2")!r}))
out["fixed"] = attempt(lambda: load({shape!r}, {ops!r}, {str(tmp_path / "b2")!r}))
out["again"] = attempt(lambda: custom_op.load_library({first!r}))
x = torch.arange(5.0)
out["runs"] = bool(torch.equal(torch.ops.q7_test_ops.copy_bytes(x), x))
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["first"] == "ok"
    assert out["libtorch"] == (
        f"RuntimeError: {libtorch}: namespace `q7_test_ops` is already registered by {first}, loaded earlier in this "
        "process; torch registers a namespace once per process: restart Python to load a changed shape library "
        "(or use another namespace)"
    )
    assert out["changed"] == (
        f"RuntimeError: {changed}: namespace `q7_test_ops` is already registered by {first}, loaded earlier in this "
        "process, with other ops or schemas; torch defines an op once per process: restart Python to load the "
        "changed shape library (or use another namespace)"
    )
    # The same ops and schemas from an edited shape.cpp: its shape functions take over.
    assert out["edited"] == "ok"
    assert out["broken"].startswith("BuildError: ") and "broken.cpp" in out["broken"]
    assert out["fixed"] == out["again"] == "ok"  # the same shape library again: reused
    assert out["runs"] is True


def test_a_namespace_torch_already_has_is_refused(tmp_path):
    shape = tmp_path / "shape.cpp"
    with open(os.path.join(OPS, "shape.cpp")) as f:
        shape.write_text(f.read().replace("NEURON_LIBRARY(q7_test_ops,", "NEURON_LIBRARY(aten,"))
    with pytest.raises(RuntimeError, match=r"namespace `aten` already has operators that q7 did not load"):
        custom_op.load(name="aten_ops", compute_srcs=[os.path.join(OPS, "ops.cpp")], shape_srcs=[str(shape)], build_directory=str(tmp_path / "b"))


@pytest.mark.parametrize(
    "make, why",
    [
        (lambda: torch.arange(4.0).to_sparse(), r"argument _0 is a torch\.sparse_coo tensor; the device reads dense"),
        (lambda: torch.eye(3).to_sparse_csr(), r"argument _0 is a torch\.sparse_csr tensor"),
        (lambda: torch.zeros(3, device="meta"), r"argument _0 is on meta; q7 runs ops on CPU tensors"),
        (lambda: torch.zeros(3, device="meta", requires_grad=True), r"argument _0 is on meta"),
        (lambda: None, r"argument _0 must be a Tensor, got None"),
    ],
    ids=["sparse", "sparse_csr", "meta", "meta_grad", "None"],
)
def test_tensor_arguments_the_device_cannot_read_raise_type_error(test_ops, make, why):
    # Through torch's dispatcher, as a user calls it: these reached the shape
    # function and came back as zeros or an empty tensor.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "sparse CSR support is in beta"
        value = make()
    with pytest.raises(TypeError, match=rf"^q7_test_ops::copy_bytes \(compute function copy_bytes, 1 core\): {why}"):
        torch.ops.q7_test_ops.copy_bytes(value)
    with pytest.raises(TypeError, match=rf"^q7_test_ops::affine .*: {why}"):
        torch.ops.q7_test_ops.affine(value, 1.0, 0, 0)


def test_a_cpu_tensor_that_requires_grad_still_runs(test_ops):
    x = torch.arange(6.0, requires_grad=True)
    assert torch.equal(torch.ops.q7_test_ops.affine(x, 2.0, 1, 0), x.detach() * 2 + 1)


def test_no_address_crosses_into_the_extension(test_ops):
    from q7 import _q7, _runtime

    # By introspection: no function or class of q7._q7 takes or hands out an address.
    for attr, obj in vars(_q7).items():
        if attr.startswith("__"):
            continue
        members = [obj] + ([v for k, v in vars(obj).items() if not k.startswith("__")] if isinstance(obj, type) else [])
        for member in members:
            text = " ".join(str(getattr(member, a, "") or "") for a in ("__name__", "__text_signature__", "__doc__"))
            assert not re.search(r"address|data_ptr|pointer", text, re.I), (attr, text)
    compute = _runtime._BOUND["q7_test_ops::copy_bytes"].compute
    x = torch.arange(4.0)
    # The old form, a tensor's data pointer and length, is refused.
    with pytest.raises(TypeError, match=r"^tensor `_0`: its contents must be bytes, got int$"):
        compute.run("copy_bytes", [("tensor", "_0", "float32", [4], x.data_ptr(), 16)], "float32", [4], 10**9)
    with pytest.raises(ValueError, match=r"^tensor `_0`: 12 bytes for shape \[4\] of float32$"):
        compute.run("copy_bytes", [("tensor", "_0", "float32", [4], bytes(12))], "float32", [4], 10**9)
    output = compute.run("copy_bytes", [("tensor", "_0", "float32", [4], x.numpy().tobytes())], "float32", [4], 10**9)["output"]
    assert type(output) is bytearray and output == x.numpy().tobytes()


def test_outputs_are_independent_of_each_other_and_of_the_inputs(test_ops):
    x = torch.arange(1000, dtype=torch.int32)
    y = torch.ops.q7_test_ops.copy_bytes(x)
    y += 5  # a write to the returned tensor
    x += 1  # and to the input, after the call
    z = torch.ops.q7_test_ops.copy_bytes(torch.full((1000,), 7, dtype=torch.int32))
    assert torch.equal(y, torch.arange(1000, dtype=torch.int32) + 5)
    assert torch.equal(z, torch.full((1000,), 7, dtype=torch.int32))
    assert torch.equal(torch.ops.q7_test_ops.copy_bytes(torch.tensor(2.5)), torch.tensor(2.5))  # 0-dim
    assert torch.ops.q7_test_ops.copy_bytes(torch.zeros(2, 0, dtype=torch.bfloat16)).shape == (2, 0)


LINE = "[core 0] " + "x" * 99 + "\n"


def test_console_output_is_complete_or_says_what_was_dropped(test_ops, capsys):
    lines = 15_000  # 1.6 MB with the core prefixes: more than 1 MiB
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.equal(torch.ops.q7_test_ops.print_lines(torch.ones(3), lines), torch.ones(3))
    out = capsys.readouterr().out
    total = lines * len(LINE)
    assert out == (LINE * lines)[: len(out)]
    notes = [str(w.message) for w in caught if issubclass(w.category, q7.ConsoleOutputWarning)]
    if len(out) == total:
        assert notes == []
    else:
        assert notes == [
            f"q7_test_ops::print_lines (compute function print_lines, 1 core): {total - len(out)} bytes of the "
            "cores' console output were dropped (more than q7 keeps per call)"
        ]


def test_a_failing_run_says_what_console_output_was_dropped(test_ops, capsys):
    with pytest.raises(q7.SimulationError) as caught:
        torch.ops.q7_test_ops.print_lines(torch.ones(3), -15_000)
    out = capsys.readouterr().out
    message = str(caught.value)
    assert "exited with status 3" in message
    total = 15_000 * len(LINE)
    if len(out) < total:
        assert message.endswith(f"\n({total - len(out)} bytes of the cores' console output were dropped (more than q7 keeps per call))")


@pytest.mark.parametrize("profiled", [False, True], ids=["plain", "profiled"])
def test_ctrl_c_stops_an_endless_op_with_keyboard_interrupt(test_ops, profiled):
    script = f"""
import contextlib, sys, time, torch, q7
from q7 import custom_op
custom_op.load_library({test_ops!r})
x = torch.ones(4)
with q7.profile() if {profiled} else contextlib.nullcontext():
    print("calling", flush=True)
    started = time.monotonic()
    try:
        torch.ops.q7_test_ops.spin_forever(x)
        print("returned")
    except KeyboardInterrupt:
        print(f"KeyboardInterrupt after {{time.monotonic() - started:.2f}} s", flush=True)
"""
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "calling\n", child.stderr.read()
        time.sleep(1.0)  # the call is in the run loop well before this
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=30)
        latency = time.monotonic() - sent
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, err[-2000:]
    assert re.fullmatch(r"KeyboardInterrupt after \d+\.\d\d s\n", out), (out, err[-2000:])
    assert float(out.split()[2]) >= 1.0  # interrupted while running, not before
    assert latency < 5.0, f"{latency:.2f} s from SIGINT to exit (asked: within 1 s)"


def _damaged(data, count=13):
    """`data` with `count` bytes in its middle inverted (the campaign's
    shape library with 13 damaged relocation bytes crashed dlopen)."""
    at = len(data) // 2
    return data[:at] + bytes(b ^ 0xFF for b in data[at : at + count]) + data[at + count :]


@pytest.mark.parametrize("which", ["shape", "compute"])
def test_a_damaged_member_is_refused_before_anything_loads(test_ops_archives, tmp_path, monkeypatch, which):
    monkeypatch.setenv("Q7_CACHE_DIR", str(tmp_path / "cache"))
    members = _archive.read(test_ops_archives["single"])
    metadata = json.loads(dict(members)["metadata.json"])
    member = metadata["shape_library"] if which == "shape" else metadata["compute_libraries"][0]
    archive = str(tmp_path / "libq7_test_ops.so")
    _archive.write(archive, [(n, _damaged(d) if n == member else d) for n, d in members])
    with pytest.raises(ValueError) as caught:
        custom_op.load_library(archive)
    assert str(caught.value) == (
        f"{archive}: member {member} does not match its SHA-256 in metadata.json: the archive is damaged; "
        "rebuild it with custom_op.load"
    )
    assert not (tmp_path / "cache").exists()  # nothing written, so nothing loaded


def test_an_archive_without_member_hashes_is_refused_with_the_fix(test_ops_archives, tmp_path):
    members = _archive.read(test_ops_archives["single"])
    metadata = json.loads(dict(members)["metadata.json"])
    del metadata["sha256"]
    archive = str(tmp_path / "libq7_test_ops.so")
    _archive.write(archive, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    with pytest.raises(ValueError) as caught:
        custom_op.load_library(archive)
    assert str(caught.value) == (
        f"{archive}: metadata.json records no member hashes (sha256; archives written by an older q7 lack them): "
        "rebuild it with custom_op.load"
    )


@pytest.mark.parametrize("delay", [0.0, 1.0], ids=["entering", "running"])
def test_the_interpreter_exits_cleanly_while_a_daemon_thread_runs_an_op(test_ops, delay):
    # The main thread leaves as the daemon thread enters the simulator
    # (before its first Ctrl-C poll), or while it runs. The poll taking the
    # GIL during or after finalization aborted the process.
    script = f"""
import sys, threading, time, torch
from q7 import custom_op
custom_op.load_library({test_ops!r})
entered = threading.Event()
def watch(frame, event, arg):
    if event == "c_call" and getattr(arg, "__qualname__", "") == "Compute.run":
        entered.set()
threading.setprofile(watch)
threading.Thread(target=lambda: torch.ops.q7_test_ops.spin_forever(torch.ones(4)), daemon=True).start()
threading.setprofile(None)
assert entered.wait(60), "the op never reached the simulator"
time.sleep({delay})
print("leaving", flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "leaving\n"), done.stderr[-3000:]
    for sign in ("Fatal Python error", "panicked", "terminate called", "core dumped"):
        assert sign not in done.stderr, done.stderr[-3000:]


def _with_op_names(source, target, rename):
    """A copy of archive `source` whose metadata.json's op names are `rename`d."""
    members = _archive.read(source)
    metadata = json.loads(dict(members)["metadata.json"])
    for op in metadata["ops"]:
        op["name"] = rename(op["name"])
    _archive.write(target, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    return metadata["shape_library"]


def test_metadata_naming_a_namespace_the_library_does_not_register_is_refused(test_ops_archives, tmp_path):
    archive = str(tmp_path / "libq7_test_ops.so")
    shape = _with_op_names(test_ops_archives["single"], archive, lambda n: n.replace("q7_test_ops::", "other_ns::"))
    with pytest.raises(ValueError) as caught:
        custom_op.load_library(archive)
    assert str(caught.value) == (
        f"{archive}: metadata.json names namespace `other_ns`, which the shape library {shape} does not register"
    )
    assert "other_ns" not in custom_op._NAMESPACES  # not taken on the archive's word


def test_metadata_naming_an_op_the_library_does_not_register_is_refused(test_ops, tmp_path):
    archive = str(tmp_path / "libq7_test_ops.so")
    shape = _with_op_names(test_ops, archive, lambda n: n.replace("::copy_bytes", "::no_such_op"))
    with pytest.raises(ValueError) as caught:
        custom_op.load_library(archive)
    assert str(caught.value) == (
        f"{archive}: metadata.json names op `q7_test_ops::no_such_op`, which the shape library {shape} does not register"
    )


def test_load_library_reads_only_a_regular_file_of_bounded_size(tmp_path):
    # /dev/zero was read without end; a FIFO without a writer blocked.
    fifo = tmp_path / "fifo.so"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.so"
    with open(huge, "wb") as f:
        f.truncate(_archive.MAX_SIZE + 1)  # sparse: no disk used
    not_regular = "not a regular file (a custom-op library is an ar archive file)"
    for path, said in [
        ("/dev/zero", f"a character device, {not_regular}"),
        (str(fifo), f"a FIFO, {not_regular}"),
        (str(tmp_path), f"a directory, {not_regular}"),
        (str(huge), "larger than 1024 MiB; not a custom-op library (refused unread)"),
    ]:
        with pytest.raises(ValueError) as caught:
            custom_op.load_library(path)
        assert str(caught.value) == f"{path}: {said}"


def test_an_archive_of_another_torch_is_refused_before_torch_loads_it(test_ops_archives, tmp_path):
    members = _archive.read(test_ops_archives["single"])
    metadata = json.loads(dict(members)["metadata.json"])
    # Only a shape library built against libtorch depends on torch (one of
    # q7's host torch loads anywhere: test_host_shape).
    metadata["shape_abi"] = "libtorch"
    metadata["torch_version"] = "2.15.0"
    other = str(tmp_path / "libq7_test_ops.so")
    _archive.write(other, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    rebuild = "rebuild it under this torch with custom_op.load (a shape library works with the torch it was built against only)"
    with pytest.raises(RuntimeError) as caught:
        custom_op.load_library(other)
    assert str(caught.value) == f"{other}: built against torch 2.15.0, but this Python has torch {torch.__version__}; {rebuild}"
    # The same torch version with the other C++ ABI (_GLIBCXX_USE_CXX11_ABI).
    ours = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    metadata["torch_version"] = torch.__version__
    metadata["torch_cxx11_abi"] = not ours
    _archive.write(other, [(n, json.dumps(metadata).encode() if n == "metadata.json" else d) for n, d in members])
    with pytest.raises(RuntimeError) as caught:
        custom_op.load_library(other)
    assert str(caught.value) == (
        f"{other}: built against a torch with _GLIBCXX_USE_CXX11_ABI={1 - ours}, but this torch has {ours}; {rebuild}"
    )


@pytest.mark.parametrize("kind", ["host", "libtorch"])
def test_a_shape_library_torch_would_abort_on_is_refused_and_the_process_lives_on(tmp_path, kind):
    # Two ops of one name: against libtorch, torch's registration throws a
    # C++ exception inside dlopen, which ends the process (std::terminate).
    shape = tmp_path / "twice.cpp"
    with open(os.path.join(OPS, "shape.cpp")) as f:
        text = f.read().replace("NEURON_LIBRARY(q7_test_ops,", "NEURON_LIBRARY(q7_twice,")
    shape.write_text(text.replace('  m.def("affine"', '  m.def("copy_bytes", &same_as_input, "copy_bytes");\n  m.def("affine"'))
    script = f"""
from q7 import custom_op
try:
    custom_op.load(name="twice", compute_srcs=[{os.path.join(OPS, "ops.cpp")!r}], shape_srcs=[{str(shape)!r}],
                   build_directory={str(tmp_path / "b")!r})
except RuntimeError as e:
    print(e)
"""
    env = dict(os.environ, Q7_SHAPE_LIBTORCH="1" if kind == "libtorch" else "0")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stdout.strip()
    if kind == "host":
        assert said == f"{tmp_path}/b/.q7-build/shape/libtwice_shape.so (built from {shape}): NEURON_LIBRARY defines op `q7_twice::copy_bytes` twice"
        return
    assert re.fullmatch(
        r".*/twice_shape_[0-9a-f]+\.so \(built from .*twice\.cpp\): torch cannot load this shape library: "
        r"Tried to register an operator \(q7_twice::copy_bytes\(Tensor _0\) -> Tensor _0\) with the same name and overload name multiple times\..* "
        r"\(found by loading it in a child process; this one loaded nothing\)",
        said,
    ), said
