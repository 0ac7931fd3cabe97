"""Signals at random points (to simulated and native runs, bare runs and
builds), commands whose stdout is closed early, and native runs on mutated
inputs."""

import os
import signal

import mutate
from common import copy, rng_for, write
from harness import Case

OLD = b"the user's old file\n"


def _spin_argv(corpus, rng):
    kind = rng.choice(["run-spin", "run-spin", "profile-spin", "run-relu", "run-relu8", "bare-spin", "bare-flood", "build", "run-wait"])
    x = corpus.path("x4.npy")
    if kind == "run-spin":
        argv = ["run", corpus.path("misc"), "--fn", "spin_forward", "--in", x, "--out", "{s}/out.npy", "--timeout", "50", "--engine", rng.choice(["jit", "interp"])]
    elif kind == "profile-spin":
        argv = ["profile", corpus.path("misc"), "--fn", "spin_forward", "--in", x, "--svg", "{s}/out.svg", "--timeout", "50"]
    elif kind == "run-relu":
        argv = ["run", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x800.npy"), "--out", "{s}/out.npy"]
    elif kind == "run-relu8":
        argv = ["run", corpus.path("relu8"), "--fn", "relu_forward", "--in", corpus.path("x800.npy"), "--out", "{s}/out.npy", "--stats"]
    elif kind == "bare-spin":
        argv = ["run-bare", corpus.path("bare", "endless", "spin.de212-O2.elf"), "--board", "de212", "--timeout", "50"]
    elif kind == "bare-flood":
        argv = ["run-bare", corpus.path("bare", "flood.de212-O2.elf"), "--board", "de212"]
    elif kind == "run-wait":
        argv = ["run", corpus.path("wait"), "--fn", "wait_forever", "--in", x, "--out", "{s}/out.npy"]
    else:
        argv = ["build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", "b", "--", "relu.cpp"]
    return kind, argv


# (SIGPIPE is left out: Rust ignores it, as q7 does; closed pipes are the pipes category.)
SIGNALS = [signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGTERM, signal.SIGKILL, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1]


def signal_cases(seed, count, corpus, reference):
    """`reference`: the bytes of librelu.packed.so as a clean build makes it."""
    cases = []
    for i in range(count):
        rng = rng_for(seed, "signals", i)
        kind, argv = _spin_argv(corpus, rng)
        sig = rng.choice(SIGNALS)
        delay = rng.choice([0.0, 0.05, 0.2, 0.5, 1.0, 1.5, rng.uniform(0, 2)]) if kind != "build" else rng.uniform(0, 3)
        target = "group" if rng.random() < 0.2 else "pid"

        def setup(s, kind=kind):
            if kind == "build":
                copy(os.path.join(corpus.repo, "examples/relu/relu.cpp"), os.path.join(s, "relu.cpp"))
            for out in ("out.npy", "out.svg"):
                write(os.path.join(s, out), OLD)

        def check(o, s, kind=kind, sig=sig):
            problems = []
            # --out only: a profile stopped by a signal writing its --svg of
            # the part that ran is taken as intended (reported, not failed).
            for out in ("out.npy",):
                p = os.path.join(s, out)
                if not os.path.exists(p):
                    problems.append(f"{out} is gone (neither the old file nor the new one)")
                    continue
                with open(p, "rb") as f:
                    data = f.read()
                if data != OLD and not data.startswith((b"\x93NUMPY", b"<")):
                    problems.append(f"{out} holds neither the old contents nor a whole output")
                if data != OLD and isinstance(o.status, int) and o.status > 0:
                    problems.append(f"a run that failed or was stopped replaced {out}")
            if sig in (signal.SIGINT, signal.SIGTERM) and o.stop_seconds is not None and kind not in ("build",) and o.stop_seconds > 2.0:
                problems.append(f"stopped {o.stop_seconds:.2f} s after {sig.name} (asked: 0.1 s)")
            if kind == "build":
                problems += _rebuild_identical(corpus, s, reference)
            return problems

        temporaries_ok = sig in (signal.SIGKILL, signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1)
        cases.append(Case("signals", f"signal-{i:04d}", ["{q7}"] + argv, setup=setup, check=check, ok=(0, 1), signal=(delay, sig, target), limit=60, temporaries_ok=temporaries_ok, note=f"{kind} {sig.name} at {delay:.2f}s to {target}"))
    return cases


def _rebuild_identical(corpus, s, reference):
    """A build killed at any point, built again, makes the same bytes."""
    import subprocess

    args = [corpus.q7, "build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", "b", "--", "relu.cpp"]
    done = subprocess.run(args, cwd=s, env={**corpus.env, "TMPDIR": os.path.join(s, "tmp")}, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return [f"the build after the signal failed: {done.stderr.strip().splitlines()[-1:]}"]
    with open(os.path.join(s, "b", "librelu.packed.so"), "rb") as f:
        if f.read() != reference:
            return ["the build after the signal differs from a clean build (librelu.packed.so)"]
    return []


def _writer(name, data):
    return lambda s: write(os.path.join(s, name), data)


def native_cases(seed, count, corpus):
    """--native runs: mutated inputs and flags, and signals to q7 while the op spins."""
    cases = []
    x = os.path.join(corpus.native, "x16.npy")
    for i in range(count):
        rng = rng_for(seed, "native", i)
        kind = rng.choice(["signal", "signal", "relu-npy", "flags", "fork", "grow"])
        name, fn = {"signal": ("nspin", "spin"), "relu-npy": ("nrelu", "relu_forward"), "flags": ("nrelu", "relu_forward"), "fork": ("nfork", "forked"), "grow": ("ngrow", "grow")}[kind]
        d = os.path.join(corpus.native, name)
        argv = ["{q7}", "run", d, "--fn", fn, "--in", x, "--native", "--timeout", "40"]
        sig, setup = None, None
        data = None
        if kind == "signal":
            sig = (rng.uniform(0.2, 3.0), rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL, signal.SIGHUP]), "pid")
        elif kind == "relu-npy":
            shape, payload = mutate.base_npy(rng)
            data = mutate.npy_bytes("<f4", shape, payload, header=mutate.header_mutation(rng, shape, payload)) if rng.random() < 0.6 else mutate.mutate_bytes(rng, mutate.npy_bytes("<f4", shape, payload), (0, 128))
            argv[argv.index(x)] = "{s}/in.npy"
            setup = _writer("in.npy", data)
        elif kind == "flags":
            argv += rng.choice([["--seed", mutate.rand_number(rng)], ["--dst-shape", mutate.rand_number(rng)], ["--cores", mutate.rand_number(rng)], ["--timeout", mutate.rand_number(rng)], ["--compare", "--tolerance", mutate.rand_number(rng)]])

        def check(o, s, d=d, kind=kind):
            problems = []
            if kind in ("fork", "grow") and o.status == 0:
                problems.append(f"the {kind} op ended with status 0 natively")
            if o.status in (130, 143) and os.path.exists(os.path.join(d, f"native-run-{o.pid}")):
                problems.append(f"its run directory native-run-{o.pid} was left after the signal")
            return problems

        cases.append(Case("native", f"native-{i:04d}", argv, setup=setup, check=check, ok=(0, 1, 2), signal=sig, limit=60, temporaries_ok=bool(sig and sig[1] != signal.SIGINT and sig[1] != signal.SIGTERM), names=("in.npy", "q7: error: core ", "native run: core ") if kind == "relu-npy" else (), note=f"{kind} {sig[1].name if sig else ''}".strip()))
    return cases


def pipe_cases(corpus):
    """Commands whose stdout is a pipe closed early (`| head -c N`): an
    ended reader must not make q7 panic ("failed printing to stdout")."""
    so, x = corpus.path("relu", "relu.so"), corpus.path("x64.npy")
    commands = [
        ["disasm", so],
        ["disasm", "--json", so],
        ["layout", "--json", so],
        ["inspect", "strings", corpus.path("fixtures", "kernels_gnu.so")],
        ["inspect", "kinfo", corpus.path("fixtures", "kernels_gnu.so")],
        ["inspect", "roster", corpus.path("fixtures", "kernels_gnu.so")],
        ["inspect", "rebase-diff"] + [corpus.path("relu8", f"relu8_cpu{i}.stripped.so") for i in range(8)],
        ["inspect", "ucpl", corpus.path("relu.cpu3.ucpl")],
        ["run-bare", corpus.path("bare", "flood.de212-O2.elf"), "--board", "de212"],
        ["run", corpus.path("pyops"), "--fn", "print_lines", "--in", corpus.path("x4.npy"), "--int", "20000"],
        ["run", corpus.path("relu"), "--fn", "relu_forward", "--in", x, "--json", "--stats"],
        ["profile", corpus.path("relu"), "--fn", "relu_forward", "--in", x],
        ["lsp", "--json", "-o", "{s}/lsp"],
        ["--help"],
    ]
    if os.path.isdir(os.path.join(corpus.native, "nflood")):
        commands.append(["run", os.path.join(corpus.native, "nflood"), "--fn", "flood", "--in", os.path.join(corpus.native, "x16.npy"), "--int", "200000", "--native"])
    cases = []
    i = 0
    for argv in commands:
        for keep in (0, 1, 100, 5000):
            script = 'set -o pipefail; "$@" | head -c ' + str(keep) + ' > /dev/null; s=("${PIPESTATUS[@]}"); exit "${s[0]}"'
            # 141: ended by SIGPIPE, as C tools are; 0/1: stopped writing on EPIPE.
            cases.append(Case("pipes", f"pipe-{i:03d}", ["bash", "-c", script, "bash", "{q7}"] + argv, ok=(0, 1, 141), error_required=False, limit=120, note=f"{argv[0]} | head -c {keep}"))
            i += 1
    return cases
