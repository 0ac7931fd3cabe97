"""Every entry point of the extension q7._q7, without torch: a build (and a
failing one), private_dir, Compute over image bytes, runs whose tensors come
as bytes, bytearray and memoryview (only bytes is accepted), malformed
argument tuples, a run with a finding, a profiled run, and Kernel.

test_bridge.py runs it in pytest; scripts/bridge-memcheck.sh runs it as a
script under valgrind's memcheck (torch stays out: its libraries are large
and noisy under valgrind). Usage: bridge_exercise.py BUILD_DIR."""

import importlib
import os
import struct
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "..", "q7")

SCHEMAS = {
    "copy_bytes": "copy_bytes(Tensor t_in) -> Tensor",
    "affine": "affine(Tensor t_in, float a, int b, Scalar c) -> Tensor",
    "write_past_end": "write_past_end(Tensor t_in) -> Tensor",
}
MAX_INSNS = 10_000_000


def load_bridge():
    """q7._q7 without running q7/__init__.py (which imports torch): a bare
    package object stands in for q7, so q7._errors still imports."""
    if "q7" not in sys.modules:
        package = types.ModuleType("q7")
        package.__path__ = [os.path.abspath(PACKAGE)]
        sys.modules["q7"] = package
    return importlib.import_module("q7._q7")


def raises(kind, call, *words):
    try:
        call()
    except kind as e:
        for word in words:
            assert word in str(e), f"{kind.__name__} without {word!r}: {e}"
        return e
    raise AssertionError(f"no {kind.__name__} from {call}")


def floats(*values):
    return struct.pack(f"<{len(values)}f", *values)


def build(q7, build_dir):
    lines = []
    q7.private_dir(build_dir)
    libraries, toolchain = q7.build(
        "libbridge",
        list(SCHEMAS),
        list(SCHEMAS.values()),
        [os.path.join(HERE, "ops", "ops.cpp")],
        build_dir,
        [],
        [],
        False,
        lines.append,
    )
    assert len(libraries) == 1 and toolchain, (libraries, toolchain)
    assert any("q7 build:" in line for line in lines), lines
    broken = os.path.join(build_dir, "broken.cpp")
    with open(broken, "w") as f:
        f.write("this is not C++\n")
    errors = importlib.import_module("q7._errors")
    raises(errors.BuildError, lambda: q7.build("libbroken", ["f"], ["f(Tensor t) -> Tensor"], [broken], build_dir, [], [], False), "broken.cpp")
    raises(OSError, lambda: q7.private_dir(os.path.join(broken, "below")))
    with open(libraries[0], "rb") as f:
        return f.read()


def compute(q7, image):
    raises(ValueError, lambda: q7.Compute("two", [image, image]), "2 images")
    raises(ValueError, lambda: q7.Compute("junk", [b"\x7fELF" + bytes(60)]), "junk")
    # Image bytes as bytes, bytearray or list: each is a sequence of bytes.
    for images in ([image], [bytearray(image)]):
        assert q7.Compute("bridge", images).cores == 1
    return q7.Compute("bridge", [image])


def runs(q7, c):
    data = floats(1.0, -2.0, 3.5, 0.25)
    run = lambda fn, args, **kw: c.run(fn, args, "float32", [4], MAX_INSNS, **kw)  # noqa: E731
    r = run("copy_bytes", [("tensor", "x", "float32", [4], data)])
    assert r["failure"] is None, r["failure"]
    assert isinstance(r["output"], bytearray) and bytes(r["output"]) == data
    # Python owns the output: writing it changes nothing q7 holds.
    r["output"][0:4] = b"\0\0\0\0"
    assert r["instructions"] > 0 and r["profile"] is None
    r = run("affine", [("tensor", "x", "float32", [4], data), ("double", 2.0), ("int", 1), ("scalar", 0.5)])
    assert bytes(r["output"]) == floats(3.5, -2.5, 8.5, 2.0), r
    # Only bytes carry tensor contents: a mutable or borrowed buffer could
    # change under a run that has released the GIL.
    for other in (bytearray(data), memoryview(data), memoryview(bytearray(data))):
        raises(TypeError, lambda: run("copy_bytes", [("tensor", "x", "float32", [4], other)]), "must be bytes")
    raises(ValueError, lambda: run("copy_bytes", [("tensor", "x", "float32", [4], data[:-1])]), "15 bytes")
    raises(ValueError, lambda: run("copy_bytes", [("tensor", "x", "float32", [1 << 62, 4], data)]), "bytes for shape")
    raises(ValueError, lambda: run("copy_bytes", [("tensor", "x", "complex64", [4], data)]), "complex64")
    raises(ValueError, lambda: run("copy_bytes", [("string", "x")]), "unknown argument kind")
    raises(IndexError, lambda: run("copy_bytes", [("tensor", "x")]))
    raises(ValueError, lambda: c.run("copy_bytes", [("tensor", "x", "float32", [4], data)], "complex64", [4], MAX_INSNS), "complex64")
    r = run("nonexistent", [("tensor", "x", "float32", [4], data)])
    assert r["output"] is None and "nonexistent" in r["failure"]["reason"], r
    r = run("write_past_end", [("tensor", "x", "float32", [4], data)])
    failure = r["failure"]
    assert r["output"] is None and failure["frames"] and isinstance(r["stderr"], bytes), r
    r = run("affine", [("tensor", "x", "float32", [4], data), ("double", 1.0), ("int", 0), ("scalar", 0.0)], profile=True)
    report = r["profile"]
    assert '"functions"' in report.json or "functions" in report.json, report.json[:200]
    assert "affine" in report.text(5) and report.text(0), report.text(5)


def kernel(q7):
    class Refused(Exception):
        _q7_for_caller = True

    def target(*args):
        if args == ("refuse",):
            raise Refused("no")
        return sum(args)

    k = q7.Kernel(target)
    assert k(1, 2, 3) == 6
    # The target's own frames are cut: the traceback starts at the caller.
    tb = raises(Refused, lambda: k("refuse"), "no").__traceback__
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert "target" not in names, names
    raises(ZeroDivisionError, lambda: q7.Kernel(lambda: 1 / 0)())


def exercise(build_dir):
    q7 = load_bridge()
    c = compute(q7, build(q7, build_dir))
    runs(q7, c)
    kernel(q7)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bridge_exercise.py BUILD_DIR")
    exercise(sys.argv[1])
    print("bridge exercise: ok")
