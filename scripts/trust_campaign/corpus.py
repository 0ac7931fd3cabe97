"""The campaign's fixed inputs, made once per campaign (builds are
incremental and cached across campaigns): ops built with `q7 build`, bare
programs, committed images, a UCPL file, the Python suite's op archives, and
the sentinel tree no run may touch."""

import os
import shutil
import struct
import subprocess
import sys

OPS = "crates/q7-sim/tests/programs/ops"

# name -> (sources, [(fn, schema)], multicore)
CLI_OPS = {
    "relu": (["examples/relu/relu.cpp"], [("relu_forward", "relu_forward(Tensor _0) -> Tensor")], False),
    "relu8": (["examples/relu_multicore/relu.cpp"], [("relu_forward", "relu_forward(Tensor _0) -> Tensor")], True),
    "misc": (
        [f"{OPS}/misc.cpp"],
        [
            ("spin_forward", "spin_forward(Tensor _0) -> Tensor"),
            ("peek_forward", "peek_forward(Tensor _0) -> Tensor"),
            ("scale_forward", "scale_forward(Tensor _0, Scalar _1, float _2, int _3) -> Tensor"),
        ],
        False,
    ),
    "race": ([f"{OPS}/race.cpp"], [("race_forward", "race_forward(Tensor _0, int _1, int _2) -> Tensor")], True),
    "oob": ([f"{OPS}/oob_store.cpp"], [("oob_forward", "oob_forward(Tensor _0, int _1, int _2) -> Tensor")], True),
    "partial": (
        [f"{OPS}/partial.cpp"],
        [
            ("evens_forward", "evens_forward(Tensor x) -> Tensor"),
            ("fault_forward", "fault_forward(Tensor x) -> Tensor"),
            ("chatty_forward", "chatty_forward(Tensor x) -> Tensor"),
        ],
        True,
    ),
    "wait": ([f"{OPS}/wait_forever.cpp"], [("wait_forever", "wait_forever(Tensor x) -> Tensor")], True),
    "pyops": (
        ["python/tests/ops/ops.cpp"],
        [("print_lines", "print_lines(Tensor t_in, int lines) -> Tensor"), ("copy_bytes", "copy_bytes(Tensor t_in) -> Tensor")],
        False,
    ),
}

# Built for --native runs, in a directory the snapshot does not watch (a
# native run writes its host build into the build directory).
NATIVE_OPS = {
    "nrelu": ("examples/relu/relu.cpp", "relu_forward", "relu_forward(Tensor _0) -> Tensor"),
    "nspin": ("fixtures/native/spin.cpp", "spin", "spin(Tensor x) -> Tensor"),
    "ngrow": ("fixtures/native/heap_growth.cpp", "grow", "grow(Tensor x) -> Tensor"),
    "nflood": ("fixtures/native/print_flood.cpp", "flood", "flood(Tensor x, int lines) -> Tensor"),
    "nfork": ("fixtures/native/fork_child.cpp", "forked", "forked(Tensor x) -> Tensor"),
}


def npy_f32(path, values, shape=None):
    shape = shape if shape is not None else (len(values),)
    from mutate import npy_bytes  # noqa: E402  (beside this file)

    with open(path, "wb") as f:
        f.write(npy_bytes("<f4", shape, struct.pack(f"<{len(values)}f", *values)))
    return path


def sample(n, seed=1):
    import random

    rng = random.Random(seed)
    return [rng.uniform(-100, 100) for _ in range(n)]


class Corpus:
    def __init__(self, repo, work, q7, python, env, log):
        self.repo, self.work, self.q7, self.python, self.env, self.log = repo, work, q7, python, env, log
        self.shared = os.path.join(work, "shared")
        self.native = os.path.join(work, "native")
        self.sentinel = os.path.join(work, "sentinel")
        self.archives = {}

    def path(self, *parts):
        return os.path.join(self.shared, *parts)

    def _q7(self, args, cwd=None):
        done = subprocess.run([self.q7] + args, cwd=cwd or self.repo, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"setup: q7 {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done

    def build(self, lite=False):
        os.makedirs(self.shared, exist_ok=True)
        for name, (sources, fns, multicore) in CLI_OPS.items():
            args = ["build", "--toolchain", "open", "--name", name, "--build-dir", self.path(name)]
            for fn, schema in fns:
                args += ["--fn", fn, "--schema", schema]
            if multicore:
                args.append("--multicore")
            self.log(f"setup: q7 build {name}")
            self._q7(args + ["--"] + [os.path.join(self.repo, s) for s in sources])
        self._q7(["prelink", self.path("relu8", "relu8_cpu3.packed.so"), "--core", "3", "-o", self.path("relu.cpu3.ucpl")])
        fixtures = self.path("fixtures")
        shutil.copytree(os.path.join(self.repo, "fixtures/bin"), fixtures, dirs_exist_ok=True)
        self._bare()
        npy_f32(self.path("x64.npy"), sample(64))
        npy_f32(self.path("x800.npy"), sample(800, 2))
        npy_f32(self.path("x4.npy"), sample(4, 3))
        if not lite:
            self._native()
            self._python()
        self._sentinel()

    def _bare(self):
        script = os.path.join(self.repo, "crates/q7-sim/tests/programs/build.sh")
        programs = os.path.join(self.repo, "crates/q7-sim/tests/programs")
        out = self.path("bare")
        self.log("setup: bare programs (hello, flood, spin)")
        for board, src, extra in [("de212", "hello.c", {}), ("de212", "flood.c", {}), ("de233_fpu", "hello.c", {})]:
            subprocess.run(["bash", script, out, board, os.path.join(programs, src)], check=True, capture_output=True, env={**self.env, **extra})
        spin_out = self.path("bare", "endless")
        env = {**self.env, "ASFLAGS": "-DSPIN_ITERATIONS=0x7fffffff"}
        subprocess.run(["bash", script, spin_out, "de212", os.path.join(programs, "spin.S")], check=True, capture_output=True, env=env)
        for d in (os.path.join(out, "obj-de212-O2"), os.path.join(out, "obj-de233_fpu-O2"), os.path.join(spin_out, "obj-de212-O2")):
            shutil.rmtree(d, ignore_errors=True)

    def _native(self):
        os.makedirs(self.native, exist_ok=True)
        x = npy_f32(os.path.join(self.native, "x16.npy"), sample(16, 4))
        for name, (src, fn, schema) in NATIVE_OPS.items():
            d = os.path.join(self.native, name)
            self.log(f"setup: q7 build {name} and its host build (--native)")
            self._q7(["build", "--toolchain", "open", "--name", fn, "--fn", fn, "--schema", schema, "--build-dir", d, "--", os.path.join(self.repo, src)])
            # The first native run builds the host SDK and the op: done here, not in a timed case.
            args = ["run", d, "--fn", fn, "--in", x, "--native", "--timeout", "1"]
            if name == "nflood":
                args += ["--int", "1"]
            subprocess.run([self.q7] + args, env=self.env, capture_output=True)

    def _python(self):
        """The Python suite's ops as custom_op archives, single and 8-core."""
        out = os.path.join(self.work, "pyarch")
        os.makedirs(out, exist_ok=True)
        script = f"""
import json, sys
from q7 import custom_op
ops = {os.path.join(self.repo, 'python/tests/ops')!r}
res = {{}}
for kind, multicore in (("single", False), ("multicore", True)):
    d = {out!r} + "/" + kind
    res[kind] = custom_op.load(name="q7_test_ops", compute_srcs=[ops + "/ops.cpp"], shape_srcs=[ops + "/shape.cpp"], build_directory=d, multicore=multicore)
print(json.dumps(res))
"""
        self.log("setup: Python op archives (the shape library takes a minute on a cold cache)")
        done = subprocess.run([self.python, "-c", script], env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"setup: custom_op.load failed:\n{done.stderr[-3000:]}")
        import json

        self.archives = json.loads(done.stdout.splitlines()[-1])

    def _sentinel(self):
        """What no run may change: devices, a FIFO, links, a read-only file."""
        s = self.sentinel
        if os.path.exists(s):
            shutil.rmtree(s)
        os.makedirs(os.path.join(s, "subdir"))
        with open(os.path.join(s, "regular.txt"), "w") as f:
            f.write("precious\n")
        with open(os.path.join(s, "subdir", "file"), "w") as f:
            f.write("precious too\n")
        ro = os.path.join(s, "readonly.txt")
        with open(ro, "w") as f:
            f.write("read-only\n")
        os.chmod(ro, 0o444)
        os.mkfifo(os.path.join(s, "fifo"))
        os.symlink("regular.txt", os.path.join(s, "link-to-regular"))
        os.symlink("subdir", os.path.join(s, "link-to-dir"))
        os.symlink("nowhere", os.path.join(s, "dangling"))
        if os.geteuid() == 0:
            os.mknod(os.path.join(s, "null-copy"), 0o666 | 0o020000, os.makedev(1, 3))

    def watched(self):
        return [self.sentinel, self.shared, "/dev/null", "/dev/full", "/dev/zero", "/dev/urandom", os.path.join(self.repo, "fixtures"), os.path.join(self.repo, "examples")]


sys.path.insert(0, os.path.dirname(__file__))
