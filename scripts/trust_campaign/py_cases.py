"""Python scenarios: custom_op.load / load_library / torch.ops calls with
hostile inputs, re-loads, Ctrl-C and threads, each in its own interpreter
(the verdict is its last line; the harness adds the black-box checks)."""

import json
import os
import signal

from common import fifo_feeder, make_node, write
from harness import Case

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> code. Each ends in done(); `S` is the scratch directory.
LOAD_ARGS = {
    "load-name-none": 'raises((TypeError, ValueError), lambda: custom_op.load(name=None, compute_srcs=[], shape_srcs=[]))',
    "load-name-empty": 'raises(ValueError, lambda: custom_op.load(name="", compute_srcs=[], shape_srcs=[]))',
    "load-name-dotdot": 'raises(ValueError, lambda: custom_op.load(name="../x", compute_srcs=[], shape_srcs=[]), "not a plain file name")',
    "load-name-dash": 'raises(ValueError, lambda: custom_op.load(name="-rf", compute_srcs=[], shape_srcs=[]))',
    "load-name-slash": 'raises(ValueError, lambda: custom_op.load(name="a/b", compute_srcs=[], shape_srcs=[]))',
    "load-name-nul": 'raises(ValueError, lambda: custom_op.load(name="x\\0y", compute_srcs=[], shape_srcs=[]))',
    "load-name-int": 'raises((TypeError, ValueError), lambda: custom_op.load(name=5, compute_srcs=[], shape_srcs=[]))',
    "load-srcs-str": 'raises(TypeError, lambda: custom_op.load(name="x", compute_srcs=OPS_DIR + "/ops.cpp", shape_srcs=[OPS_DIR + "/shape.cpp"]))',
    "load-src-missing": 'raises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[S + "/nope.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"), "nope.cpp")',
    "load-src-dir": 'os.makedirs(S + "/srcdir")\nraises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[S + "/srcdir"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"), "srcdir")',
    "load-src-devnull": 'raises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=["/dev/null"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"))\ncheck(os.path.exists("/dev/null") and not os.path.isfile("/dev/null"), "/dev/null changed")',
    "load-src-garbage": 'open(S + "/g.cpp", "wb").write(bytes(range(256)) * 8)\nraises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[S + "/g.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"), "g.cpp")',
    "load-src-twice": 'raises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"] * 2, shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"))',
    "load-shape-missing": 'raises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[S + "/noshape.cpp"], build_directory=S + "/b"), "noshape.cpp")',
    "load-shape-empty-list": 'raises(Exception, lambda: custom_op.load(name="q7_empty_ns", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[], build_directory=S + "/b"))',
    "load-bdir-file": 'open(S + "/afile", "w").write("x")\nraises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/afile"), "afile")\ncheck(open(S + "/afile").read() == "x", "the file was changed")',
    "load-bdir-chr": 'os.mknod(S + "/dev", 0o666 | 0o020000, os.makedev(1, 3))\nraises(Exception, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/dev"), "dev")\nimport stat\ncheck(stat.S_ISCHR(os.lstat(S + "/dev").st_mode), "the device changed")',
    "load-bdir-0777": 'os.makedirs(S + "/shared"); os.chmod(S + "/shared", 0o777)\nraises(PermissionError, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/shared"), "writable by")\ncheck(os.listdir(S + "/shared") == [], "wrote into a shared directory")',
    "load-bdir-other-owner": 'os.makedirs(S + "/theirs", mode=0o700)\nif os.geteuid() == 0:\n    os.chown(S + "/theirs", 65534, 65534)\n    raises(PermissionError, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/theirs"), "owned by")',
    "load-bdir-symlink": 'os.makedirs(S + "/real", mode=0o700); os.symlink("real", S + "/via")\ntry:\n    custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/via")\nexcept PermissionError as e:\n    check("via" in str(e), f"refusal does not name the link: {e}")',
    "load-bdir-planted-links": 'os.makedirs(S + "/b", mode=0o700)\nopen(S + "/victim", "w").write("precious")\nfor n in ("ops.s", "ops.ll", "ops.d", "ops.o", "wrapper.cpp", "wrapper.s", "wrapper.ll", "wrapper.d", "libq7_test_opscustomop.so", "libq7_test_ops.so", "libq7_test_opscustomop.packed.so"):\n    os.symlink(S + "/victim", S + "/b/" + n)\ncustom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\ncheck(open(S + "/victim", "rb").read() == b"precious", "a generated file was written through a planted symlink")\nx = torch.arange(4.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "copy_bytes wrong")',
    "load-default-dir-other-owner": 'import tempfile\nd = os.path.join(tempfile.gettempdir(), f"q7_custom_op-{os.getuid()}")\nos.makedirs(d, mode=0o700)\nif os.geteuid() == 0:\n    os.chown(d, 65534, 65534)\n    raises(PermissionError, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"]), "owned by")',
    # Another user's link at the per-user path, to a directory the victim owns.
    "load-default-dir-others-symlink": 'import tempfile\nos.makedirs(S + "/elsewhere", mode=0o700)\nd = os.path.join(tempfile.gettempdir(), f"q7_custom_op-{os.getuid()}")\nos.symlink(S + "/elsewhere", d)\nif os.geteuid() == 0:\n    os.lchown(d, 65534, 65534)\n    try:\n        custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"])\n        fail(f"a per-user build directory that is a link owned by uid 65534 was used: {os.listdir(S + \'/elsewhere\')}")\n    except PermissionError:\n        pass',
    "load-cflags-str": 'try:\n    custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], extra_cflags="-O2", build_directory=S + "/b")\n    fail("extra_cflags as a string was split into characters and accepted")\nexcept (TypeError, ValueError):\n    pass\nexcept Exception as e:\n    fail(f"extra_cflags as a string: {type(e).__name__}: {str(e)[:200]}")',
    "load-include-file": 'open(S + "/inc", "w").write("x")\nload = lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], extra_include_paths=[S + "/inc"], build_directory=S + "/b")\ntry:\n    load()\nexcept Exception as e:\n    check("inc" in str(e), f"error does not name the include path: {str(e)[:200]}")',
    "load-dash-source": 'import shutil\nshutil.copy(OPS_DIR + "/ops.cpp", S + "/-ops.cpp")\nos.chdir(S)\ncustom_op.load(name="q7_test_ops", compute_srcs=["-ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result")',
    "load-at-source": 'open(S + "/rsp.cpp", "w").write("-include " + S + "/planted.h\\n")\nopen(S + "/planted.h", "w").write("#error PLANTED\\n")\nimport shutil\nshutil.copy(OPS_DIR + "/ops.cpp", S + "/@rsp.cpp")\nos.chdir(S)\ntry:\n    custom_op.load(name="q7_test_ops", compute_srcs=["@rsp.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nexcept Exception as e:\n    check("PLANTED" not in str(e), "a response file was applied")',
    "load-wrapper-source-in-build-dir": 'import shutil\nshutil.copy(OPS_DIR + "/ops.cpp", S + "/wrapper.cpp")\nos.chmod(S, 0o700)\nwant = open(S + "/wrapper.cpp").read()\nos.chdir(S)\ntry:\n    custom_op.load(name="q7_test_ops", compute_srcs=["wrapper.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=os.getcwd())\nexcept Exception as e:\n    check("wrapper.cpp" in str(e), f"error does not name wrapper.cpp: {str(e)[:200]}")\ncheck(open(S + "/wrapper.cpp").read() == want, "the build overwrote the source wrapper.cpp")',
    "load-verbose": 'custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b", verbose=True)',
    "load-twice-same": 'for _ in range(2):\n    custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nx = torch.arange(5.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result after a second load")',
    "load-compute-error-then-fixed": 'open(S + "/broken.cpp", "w").write("this is not C++\\n")\nraises(q7.BuildError, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[S + "/broken.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b"), "broken.cpp")\ncustom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nx = torch.arange(5.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result")',
    "load-edited-shape-raises": 'bind()\nsrc = open(OPS_DIR + "/shape.cpp").read().replace("int64_t lines", "double lines")\nopen(S + "/shape.cpp", "w").write(src)\nraises(RuntimeError, lambda: custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[S + "/shape.cpp"], build_directory=S + "/b"), "restart Python")\nx = torch.arange(5.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "the process does not live on")',
    "load-edited-shape-same-ops": 'bind()\nsrc = open(OPS_DIR + "/shape.cpp").read() + "\\n// edited by the campaign\\n"\nopen(S + "/shape.cpp", "w").write(src)\ncustom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[S + "/shape.cpp"], build_directory=S + "/b")\nx = torch.arange(5.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "the edited shape library does not run")',
    "load-aten-namespace": 'src = open(OPS_DIR + "/shape.cpp").read().replace("NEURON_LIBRARY(q7_test_ops,", "NEURON_LIBRARY(aten,")\nopen(S + "/shape.cpp", "w").write(src)\nraises(RuntimeError, lambda: custom_op.load(name="aten_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[S + "/shape.cpp"], build_directory=S + "/b"), "aten")',
}

LOAD_LIBRARY = {
    "lib-missing": 'raises((OSError, ValueError), lambda: custom_op.load_library(S + "/nope.so"), "nope.so")',
    "lib-dir": 'raises((OSError, ValueError), lambda: custom_op.load_library(S))',
    "lib-devnull": 'raises(ValueError, lambda: custom_op.load_library("/dev/null"), "/dev/null")',
    "lib-devzero": 'raises((ValueError, OSError), lambda: custom_op.load_library("/dev/zero"), "/dev/zero")',
    # Only regular files are read (a FIFO, even one with a writer, is refused unread).
    "lib-fifo": 'raises(ValueError, lambda: custom_op.load_library(S + "/fifo.so"), "a FIFO, not a regular file")',
    "lib-none": 'raises(TypeError, lambda: custom_op.load_library(None))',
    "lib-bytes-path": 'custom_op.load_library(ARCH["single"].encode())\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result")',
    "lib-pathlike": 'import pathlib\ncustom_op.load_library(pathlib.Path(ARCH["single"]))\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result")',
    "lib-truncated": 'data = open(ARCH["single"], "rb").read()\nopen(S + "/t.so", "wb").write(data[: len(data) // 2])\nraises(ValueError, lambda: custom_op.load_library(S + "/t.so"), "t.so")',
    "lib-reload-20": 'for _ in range(20):\n    bind()\nx = torch.arange(7.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong result")',
    # copy_bytes is not partitioned: on 8 cores every core writes every element, a race q7 must report.
    "lib-single-then-multicore": 'bind("single")\nbind("multicore")\nx = torch.arange(800.0)\nraises(q7.SimulationError, lambda: ops().copy_bytes(x), "race")\nbind("single")\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong after rebinding to 1 core")',
    "lib-escape-metadata-relative": 'from q7 import _archive\nm = json.loads(dict(_archive.read(ARCH["single"]))["metadata.json"])\nrel = os.path.relpath(SENTINEL + "/regular.txt", os.path.join(os.environ["Q7_CACHE_DIR"], "loaded", "0123456789abcdef"))\nm["shape_library"] = rel\nmembers = [(n, d) for n, d in _archive.read(ARCH["single"]) if n != "metadata.json"] + [("metadata.json", json.dumps(m).encode())]\n_archive.write(S + "/evil.so", members)\nraises(ValueError, lambda: custom_op.load_library(S + "/evil.so"), "not a plain file name")',
    "lib-escape-metadata-absolute": 'from q7 import _archive\nm = json.loads(dict(_archive.read(ARCH["single"]))["metadata.json"])\nm["shape_library"] = SENTINEL + "/regular.txt"\nmembers = [(n, d) for n, d in _archive.read(ARCH["single"]) if n != "metadata.json"] + [("metadata.json", json.dumps(m).encode())]\n_archive.write(S + "/evil.so", members)\nraises(ValueError, lambda: custom_op.load_library(S + "/evil.so"), "not a plain file name")',
    "lib-escape-member": 'from q7 import _archive\nmembers = _archive.read(ARCH["single"])\nmembers.insert(0, ("../../../x.so", b"\\x7fELF"))\n_archive.write(S + "/evil.so", members)\nraises(ValueError, lambda: custom_op.load_library(S + "/evil.so"), "not a plain file name")',
    "lib-shape-garbage-new-ns": 'from q7 import _archive\nmembers = _archive.read(ARCH["single"])\nm = json.loads(dict(members)["metadata.json"])\nfor op in m["ops"]:\n    op["name"] = op["name"].replace("q7_test_ops", "campaign_ns")\nmembers = [(n, b"\\x7fELF garbage" if n == m["shape_library"] else d) for n, d in members if n != "metadata.json"] + [("metadata.json", json.dumps(m).encode())]\n_archive.write(S + "/bad.so", members)\nraises(Exception, lambda: custom_op.load_library(S + "/bad.so"))',
    "lib-compute-garbage": 'from q7 import _archive\nmembers = _archive.read(ARCH["single"])\nm = json.loads(dict(members)["metadata.json"])\nmembers = [(n, b"not an image" if n in m["compute_libraries"] else d) for n, d in members]\n_archive.write(S + "/bad.so", members)\ntry:\n    custom_op.load_library(S + "/bad.so")\n    ops().copy_bytes(torch.ones(3))\n    fail("a garbage compute image ran")\nexcept (ValueError, RuntimeError, q7.SimulationError) as e:\n    pass',
}

CALLS = {
    "call-none": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(None), "must be a Tensor")',
    "call-sparse": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.arange(4.0).to_sparse()), "sparse")',
    "call-meta": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.zeros(3, device="meta")), "meta")',
    "call-f64": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.zeros(3, dtype=torch.float64)), "dtype")',
    "call-complex": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.zeros(3, dtype=torch.complex64)), "dtype")',
    "call-bool": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.zeros(3, dtype=torch.bool)), "dtype")',
    "call-i64": 'bind()\nraises(TypeError, lambda: ops().copy_bytes(torch.zeros(3, dtype=torch.int64)), "dtype")',
    "call-noncontiguous": 'bind()\nx = torch.arange(12.0).reshape(3, 4).t()\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong on a transposed tensor")',
    "call-flipped": 'bind()\nx = torch.arange(10.0).flip(0)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong on a flipped tensor")',
    "call-negview": 'bind()\nx = torch.arange(4.0, dtype=torch.float32)\ny = x.conj() if False else torch._neg_view(x)\ncheck(torch.equal(ops().copy_bytes(y), -x), "wrong on a negative view")',
    "call-0dim": 'bind()\ncheck(torch.equal(ops().copy_bytes(torch.tensor(2.5)), torch.tensor(2.5)), "wrong on 0-dim")',
    "call-empty": 'bind()\ncheck(ops().copy_bytes(torch.zeros(0)).shape == (0,), "wrong on an empty tensor")',
    "call-big": 'bind()\nx = torch.randn(1 << 20)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong on 1M floats")',
    "call-dtypes": 'bind()\nfor dt in (torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int16, torch.int8, torch.uint8):\n    x = (torch.arange(20) % 7).to(dt)\n    check(torch.equal(ops().copy_bytes(x), x), f"wrong for {dt}")',
    "call-no-args": 'bind()\nraises((TypeError, RuntimeError), lambda: ops().copy_bytes())',
    "call-two-args": 'bind()\nraises((TypeError, RuntimeError), lambda: ops().copy_bytes(torch.ones(2), torch.ones(2)))',
    "call-str": 'bind()\nraises((TypeError, RuntimeError), lambda: ops().copy_bytes("x"))',
    "call-list": 'bind()\nraises((TypeError, RuntimeError), lambda: ops().copy_bytes([1.0, 2.0]))',
    "call-numpy": 'bind()\nimport numpy\nraises((TypeError, RuntimeError), lambda: ops().copy_bytes(numpy.ones(3, dtype=numpy.float32)))',
    "call-int-huge": 'bind()\nraises((TypeError, RuntimeError, OverflowError, ValueError), lambda: ops().affine(torch.ones(3), 1.0, 2**63, 0))',
    "call-int-nan": 'bind()\nraises((TypeError, RuntimeError, ValueError), lambda: ops().affine(torch.ones(3), 1.0, float("nan"), 0))',
    "call-double-str": 'bind()\nraises((TypeError, RuntimeError), lambda: ops().affine(torch.ones(3), "x", 1, 0))',
    "call-scalar-complex": 'bind()\ntry:\n    ops().affine(torch.ones(3), 1.0, 1, complex(1, 2))\nexcept (TypeError, RuntimeError, ValueError):\n    pass',
    "call-scalar-bool": 'bind()\ny = ops().affine(torch.ones(3), 2.0, 1, True)\ncheck(y.shape == (3,), "wrong shape")',
    "call-scalar-inf": 'bind()\ny = ops().affine(torch.ones(3), float("inf"), 0, float("nan"))\ncheck(y.shape == (3,), "wrong shape")',
    "call-affine-values": 'bind()\nx = torch.arange(6.0)\ncheck(torch.equal(ops().affine(x, 2.0, 1, 0), x * 2 + 1), "affine wrong")',
    "call-write-past-end": 'bind()\nraises(q7.SimulationError, lambda: ops().write_past_end(torch.ones(100)), "outside")',
    "call-write-half": 'bind()\nwith warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter("always")\n    ops().write_half(torch.ones(10))\ncheck(any(issubclass(x.category, q7.UnwrittenOutputWarning) for x in w), "no UnwrittenOutputWarning")',
    "call-say-hello": 'bind()\nops().say_hello(torch.ones(2))',
    "call-print-lines": 'bind()\nimport io, contextlib\nbuf = io.StringIO()\nwith warnings.catch_warnings(record=True) as w, contextlib.redirect_stdout(buf):\n    warnings.simplefilter("always")\n    ops().print_lines(torch.ones(3), 15000)\nout = buf.getvalue()\ntotal = 15000 * len("[core 0] " + "x" * 99 + "\\n")\nnoted = [x for x in w if issubclass(x.category, q7.ConsoleOutputWarning)]\ncheck(len(out) == total or (noted and str(total - len(out)) in str(noted[0].message)), f"{total - len(out)} bytes dropped silently")',
    "call-print-lines-fail": 'bind()\nraises(q7.SimulationError, lambda: ops().print_lines(torch.ones(3), -5), "status 3")',
    "call-requires-grad": 'bind()\nx = torch.arange(6.0, requires_grad=True)\ncheck(torch.equal(ops().affine(x, 2.0, 1, 0), x.detach() * 2 + 1), "wrong")',
    "call-parameter": 'bind()\np = torch.nn.Parameter(torch.arange(4.0))\ncheck(torch.equal(ops().copy_bytes(p), p.detach()), "wrong on a Parameter")',
    "call-slice-view": 'bind()\nx = torch.arange(20.0)[3:11:2]\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong on a strided slice")',
    "call-channels-last": 'bind()\nx = torch.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=torch.channels_last)\ncheck(torch.equal(ops().copy_bytes(x), x), "wrong on channels_last")',
    "call-rank-9": 'bind()\nx = torch.ones([1] * 9)\ntry:\n    ops().copy_bytes(x)\nexcept (TypeError, ValueError, RuntimeError, q7.SimulationError) as e:\n    pass',
    "call-default-overload": 'bind()\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes.default(x), x), "wrong via .default")',
    "call-outputs-independent": 'bind()\nx = torch.arange(100, dtype=torch.int32)\ny = ops().copy_bytes(x)\ny += 1\nz = ops().copy_bytes(x)\ncheck(torch.equal(z, x) and torch.equal(y, x + 1), "outputs share memory")',
    "stats-op-object": 'bind()\nops().copy_bytes(torch.ones(3))\nst = q7.stats(ops().copy_bytes)\ncheck(st and st.get("calls", 0) >= 1, f"q7.stats(op) = {st}")',
    "stats-default": 'bind()\nops().copy_bytes(torch.ones(3))\nst = q7.stats(ops().copy_bytes.default)\ncheck(st and st.get("calls", 0) >= 1, f"q7.stats(op.default) = {st}")',
    "stats-bad": 'bind()\nraises(ValueError, lambda: q7.stats("nope::x"))\nraises(TypeError, lambda: q7.stats(5))',
    "profile-nested": 'bind()\nwith q7.profile() as a:\n    with q7.profile() as b:\n        ops().copy_bytes(torch.ones(3))\ncheck(len(a.calls) == 1 and len(b.calls) == 1, "nested profiles")\na.summary()',
    "profile-exception": 'bind()\ntry:\n    with q7.profile() as p:\n        ops().write_past_end(torch.ones(100))\nexcept q7.SimulationError:\n    pass\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "broken after an exception inside profile")',
    "threads-calls": 'bind()\nerrs = []\ndef work(k):\n    for i in range(10):\n        x = torch.full((64,), float(k * 100 + i))\n        if not torch.equal(ops().copy_bytes(x), x):\n            errs.append((k, i))\nts = [threading.Thread(target=work, args=(k,)) for k in range(4)]\n[t.start() for t in ts]\n[t.join(60) for t in ts]\ncheck(not errs, f"wrong results across threads: {errs[:5]}")\ncheck(not any(t.is_alive() for t in ts), "threads hung")',
    "threads-profile": 'bind()\nerrs = []\ndef work(k):\n    try:\n        x = torch.full((8,), float(k))\n        if not torch.equal(ops().copy_bytes(x), x):\n            errs.append(k)\n    except Exception as e:\n        errs.append(repr(e))\nwith q7.profile() as p:\n    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]\n    [t.start() for t in ts]\n    [t.join(60) for t in ts]\ncheck(not errs, f"errors: {errs}")',
    "threads-errors": 'bind()\nerrs = []\ndef work():\n    try:\n        ops().write_past_end(torch.ones(100))\n    except q7.SimulationError:\n        pass\n    except Exception as e:\n        errs.append(repr(e))\nts = [threading.Thread(target=work) for _ in range(4)]\n[t.start() for t in ts]\n[t.join(60) for t in ts]\ncheck(not errs, f"errors: {errs}")',
    "multicore-race-reported": 'bind("multicore")\nraises(q7.SimulationError, lambda: ops().write_everywhere(torch.randn(800)), "race")',
    "fork-after-load": 'bind()\npid = os.fork()\nif pid == 0:\n    try:\n        x = torch.arange(3.0)\n        ok = torch.equal(ops().copy_bytes(x), x)\n        os._exit(0 if ok else 4)\n    except BaseException:\n        os._exit(5)\nimport time as _t\nfor _ in range(600):\n    p, status = os.waitpid(pid, os.WNOHANG)\n    if p:\n        break\n    _t.sleep(0.1)\nelse:\n    os.kill(pid, 9); os.waitpid(pid, 0)\n    fail("a forked child calling an op hung")\n    status = None\nif status is not None:\n    check(os.waitstatus_to_exitcode(status) in (0, 5), f"forked child status {status}")',
    # The interpreter exits while a daemon thread runs an op (soon after it started, and later).
    "daemon-thread-exit-early": 'bind()\nt = threading.Thread(target=lambda: ops().spin_forever(torch.ones(4)), daemon=True)\nt.start()\ntime.sleep(0.005)',
    "daemon-thread-at-exit": 'bind()\nt = threading.Thread(target=lambda: ops().spin_forever(torch.ones(4)), daemon=True)\nt.start()\ntime.sleep(1.0)',
    "neuronx-stand-in": 'from q7 import neuronx\nneuronx.install()\nimport torch_neuronx\nfrom torch_neuronx.xla_impl import custom_op as c\ncheck(c is custom_op, "stand-in is not q7.custom_op")\nraises(AttributeError, lambda: torch_neuronx.trace, "not provided by q7")',
}

# Ctrl-C and other signals: (code, signal, delay after the "ready" marker).
SIGNALLED = {
    "sigint-spin": ('bind()\nmark("ready")\ntry:\n    ops().spin_forever(torch.ones(4))\n    fail("spin_forever returned")\nexcept KeyboardInterrupt:\n    mark("caught")', signal.SIGINT, 1.0),
    "sigint-spin-profile": ('bind()\nmark("ready")\ntry:\n    with q7.profile():\n        ops().spin_forever(torch.ones(4))\n    fail("spin_forever returned")\nexcept KeyboardInterrupt:\n    mark("caught")', signal.SIGINT, 1.0),
    "sigint-spin-multicore": ('bind("multicore")\nmark("ready")\ntry:\n    ops().spin_forever(torch.ones(64))\n    fail("spin_forever returned")\nexcept KeyboardInterrupt:\n    mark("caught")', signal.SIGINT, 1.0),
    "sigint-spin-early": ('bind()\nmark("ready")\ntry:\n    ops().spin_forever(torch.ones(4))\nexcept KeyboardInterrupt:\n    mark("caught")', signal.SIGINT, 0.0),
    "sigint-then-call-again": ('bind()\nmark("ready")\ntry:\n    ops().spin_forever(torch.ones(4))\nexcept KeyboardInterrupt:\n    mark("caught")\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "broken after Ctrl-C")', signal.SIGINT, 0.5),
    "sigint-thread-spin": ('bind()\nt = threading.Thread(target=lambda: ops().spin_forever(torch.ones(4)), daemon=True)\nt.start()\nmark("ready")\ntry:\n    while t.is_alive():\n        t.join(0.05)\nexcept KeyboardInterrupt:\n    mark("caught")', signal.SIGINT, 1.0),
    "sigint-during-load": ('mark("ready")\ntry:\n    custom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nexcept KeyboardInterrupt:\n    mark("caught")\ncustom_op.load(name="q7_test_ops", compute_srcs=[OPS_DIR + "/ops.cpp"], shape_srcs=[OPS_DIR + "/shape.cpp"], build_directory=S + "/b")\nx = torch.arange(3.0)\ncheck(torch.equal(ops().copy_bytes(x), x), "broken after Ctrl-C in load")', signal.SIGINT, 0.3),
    "sigterm-spin": ('bind()\nmark("ready")\nops().spin_forever(torch.ones(4))', signal.SIGTERM, 1.0),
    "sigkill-spin": ('bind()\nmark("ready")\nops().spin_forever(torch.ones(4))', signal.SIGKILL, 1.0),
    "sigint-handler-flag": ('bind()\nseen = []\nsignal.signal(signal.SIGINT, lambda *a: seen.append(1))\nmark("ready")\nt0 = time.time()\nx = torch.arange(3.0)\nwhile time.time() - t0 < 2:\n    check(torch.equal(ops().copy_bytes(x), x), "wrong")\ncheck(seen, "the handler never ran")', signal.SIGINT, 0.5),
}


def _scenario_case(name, code, corpus, python, sig=None, index=0, setup_extra=None, limit=120):
    with open(os.path.join(HERE, "py_prelude.py")) as f:
        prelude = f.read()
    env = {
        "CAMPAIGN_ARCHIVES": json.dumps(corpus.archives),
        "CAMPAIGN_OPS_DIR": os.path.join(corpus.repo, "python/tests/ops"),
        "CAMPAIGN_SCRATCH": "{s}",
        "CAMPAIGN_SENTINEL": corpus.sentinel,
    }

    def setup(s):
        write(os.path.join(s, "scenario.py"), prelude + "\n" + code + "\ndone()\n")
        if setup_extra:
            setup_extra(s)

    def check(o, s):
        problems = []
        with open(o.stdout_path, "rb") as f:
            stdout = f.read().decode("utf-8", "replace")
        fails = [l[len("SCENARIO-FAIL: ") :] for l in stdout.splitlines() if l.startswith("SCENARIO-FAIL: ")]
        problems += fails
        if sig is None and "SCENARIO-OK" not in stdout and not fails:
            tail = (o.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            problems.append(f"no verdict: {tail[:300]}")
        if sig is not None and sig[0] == signal.SIGINT and name != "sigint-handler-flag" and o.sent_wall:
            caught = os.path.join(s, "caught")
            if not os.path.exists(caught):
                problems.append(f"no KeyboardInterrupt after SIGINT (status {o.status}): {(o.stderr.strip().splitlines() or [''])[-1][:200]}")
            else:
                latency = float(open(caught).read()) - o.sent_wall
                limit_s = 1.0 if name != "sigint-during-load" else 5.0
                if latency > limit_s:
                    problems.append(f"KeyboardInterrupt {latency:.2f} s after SIGINT (asked: within 1 s)")
        return problems

    ready = (lambda s: os.path.exists(os.path.join(s, "ready"))) if sig else None
    ok = (0,) if sig is None or sig[0] == signal.SIGINT else (0, 128 + sig[0])
    return Case(
        "python",
        f"py-{index:03d}-{name}",
        [python, "{s}/scenario.py"],
        setup=setup,
        check=check,
        env=env,
        ok=ok,
        signal=(sig[1], sig[0], "pid") if sig else None,
        wait_for=ready,
        limit=limit,
        temporaries_ok=bool(sig),
        error_required=False,
        note=name,
    )


def _fifo_archive(corpus):
    def make(s):
        make_node(os.path.join(s, "fifo.so"), "fifo")
        with open(corpus.archives["single"], "rb") as f:
            fifo_feeder(os.path.join(s, "fifo.so"), f.read())

    return make


def python_cases(corpus, python):
    cases = []
    table = list(LOAD_ARGS.items()) + list(LOAD_LIBRARY.items()) + list(CALLS.items())
    for i, (name, code) in enumerate(table):
        extra = _fifo_archive(corpus) if name == "lib-fifo" else None
        if name == "lib-devzero":
            # Bounded here, so an unbounded read ends in MemoryError, not the watchdog.
            code = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n" + code
        cases.append(_scenario_case(name, code, corpus, python, index=i, setup_extra=extra))
    for j, (name, (code, sig, delay)) in enumerate(SIGNALLED.items()):
        cases.append(_scenario_case(name, code, corpus, python, sig=(sig, delay), index=len(table) + j))
    return cases


def archive_load_cases(seed, count, corpus, python, batch=25):
    """Mutated archives given to load_library, `batch` per interpreter: each
    archive is one run (its outcome a line); a dead interpreter names the
    archive it died on, and the rest of its batch runs again in a new one."""
    from q7_archive import mutated_archives  # beside this file

    archives = mutated_archives(seed, count, corpus)
    return [_batch_case(archives[b : b + batch], f"py-{900 + b // batch:03d}-archives-{b:04d}", corpus, python) for b in range(0, len(archives), batch)]


def _batch_case(chunk, name, corpus, python):
    code = _BATCH_CODE % json.dumps([n for n, _ in chunk])

    def extra(s):
        for n, data in chunk:
            write(os.path.join(s, n), data)

    case = _scenario_case("", code, corpus, python, setup_extra=extra, limit=300)
    case.name, case.note, case.category = name, name, "py-archive"
    case.chunk = chunk
    case.runs = [n for n, _ in chunk]
    case.verdicts = {}
    case.never = []
    case.check = _batch_check(case)
    return case


def resume(case, corpus, python):
    """The archives of a batch whose interpreter died before reaching them, in a new one."""
    rest = [(n, d) for n, d in case.chunk if n in case.never]
    return _batch_case(rest, f"{case.name}-rest", corpus, python) if rest else None


def _batch_check(case):
    from q7_archive import batch_verdicts

    def check(o, s):
        with open(o.stdout_path, "rb") as f:
            stdout = f.read().decode("utf-8", "replace")
        verdicts, never = batch_verdicts(stdout, case.runs)
        case.verdicts.update(verdicts)
        case.never = never
        problems = [f"{name}: {p}" for name, (ps, _) in sorted(verdicts.items()) for p in ps]
        if "SCENARIO-OK" not in stdout and not never:
            problems.append("the batch ended without its verdict line")
        return problems

    return check


_BATCH_CODE = '''
names = json.loads(%r)
import traceback
for n in names:
    print("ARCHIVE-START", n, flush=True)
    try:
        custom_op.load_library(os.path.join(S, n))
        try:
            x = torch.arange(4.0)
            y = ops().copy_bytes(x)
            outcome = "loaded; call " + ("ok" if torch.equal(x, y) else "WRONG")
        except Exception as e:
            outcome = f"loaded; call raised {type(e).__name__}: {str(e)[:150]}"
    except (ValueError, OSError, RuntimeError, TypeError, q7.SimulationError) as e:
        msg = str(e).splitlines()[0] if str(e) else ""
        outcome = f"refused {type(e).__name__}: {msg[:200]}"
        if n not in str(e):
            outcome += " [does not name the archive]"
    except BaseException as e:
        outcome = f"UNEXPECTED {type(e).__name__}: {str(e)[:200]}"
    print("ARCHIVE-END", n, outcome, flush=True)
'''
