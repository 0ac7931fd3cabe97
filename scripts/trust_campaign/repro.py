"""Issue #26's reproductions, each a case whose check finds the bug when it
is present (clean = fixed). The note names the item."""

import os
import shutil
import signal
import struct
import subprocess
import time

import mutate
from common import copy, fifo_reader, file_type, make_node, write
from harness import Case

OLD = b"the user's file\n"
ROOT = os.geteuid() == 0


def _case(item, slug, argv, check, setup=None, **kw):
    return Case("repro", f"repro-{item}-{slug}", argv, setup=setup, check=check, note=f"#26 {item}: {slug}", **kw)


def _status(want):
    def check(o, s):
        return [] if o.status == want else [f"exit status {o.status}, want {want}"]

    return check


def item1(corpus):
    relu, x = corpus.path("relu"), corpus.path("x64.npy")
    run = ["{q7}", "run", relu, "--fn", "relu_forward", "--in", x, "--out"]
    cases = []
    if ROOT:

        def chr_ok(o, s, node="F"):
            p = [] if file_type(os.path.join(s, node)) == "chr" else [f"{node} became a {file_type(os.path.join(s, node))}"]
            return p + ([] if o.status == 0 else [f"exit status {o.status}"])

        cases.append(_case("1", "out-mknod-null", run + ["{s}/F"], chr_ok, setup=lambda s: make_node(os.path.join(s, "F"), "chr-null")))

        def full_fails(o, s):
            p = [] if file_type(os.path.join(s, "F")) == "chr" else ["the device was replaced"]
            return p + (["reported success writing to /dev/full's twin"] if o.status == 0 else [])

        cases.append(_case("1", "out-mknod-full", run + ["{s}/F"], full_fails, setup=lambda s: make_node(os.path.join(s, "F"), "chr-full"), names=("F",)))
        # The literal `--out /dev/null`, in a mount namespace of its own whose
        # /dev is a private tmpfs: a regression cannot touch the machine's.
        ns = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs tmpfs /dev && mknod -m666 /dev/null c 1 3 && mknod -m666 /dev/full c 1 7 && "$@"; rc=$?; stat -c "TYPE %F" /dev/null /dev/full; exit $rc', "sh"]

        def devnull(o, s):
            types = [l for l in o.stdout.splitlines() if l.startswith("TYPE ")]
            return [] if o.status == 0 and types == ["TYPE character special file"] * 2 else [f"status {o.status}, after: {types}"]

        cases.append(_case("1", "out-dev-null-in-namespace", ns + run + ["/dev/null"], devnull))

        def devfull(o, s):
            types = [l for l in o.stdout.splitlines() if l.startswith("TYPE ")]
            p = [] if types == ["TYPE character special file"] * 2 else [f"after: {types}"]
            return p + (["`--out /dev/full` reported success"] if o.status == 0 else [])

        cases.append(_case("1", "out-dev-full-in-namespace", ns + run + ["/dev/full"], devfull, names=("/dev/full",)))
    sink = []

    def fifo_setup(s):
        make_node(os.path.join(s, "P"), "fifo")
        sink.clear()
        fifo_reader(os.path.join(s, "P"), sink)

    def fifo_check(o, s):
        time.sleep(0.1)
        got = sink[0] if sink else None
        p = [] if file_type(os.path.join(s, "P")) == "fifo" else ["the FIFO was replaced"]
        return p + ([] if isinstance(got, bytes) and got.startswith(b"\x93NUMPY") else [f"the FIFO's reader got {got!r:.40}"])

    cases.append(_case("1", "out-fifo", run + ["{s}/P"], fifo_check, setup=fifo_setup))

    def link_setup(s):
        write(os.path.join(s, "target.npy"), OLD, 0o600)
        os.symlink("target.npy", os.path.join(s, "L"))

    def link_check(o, s):
        p = [] if file_type(os.path.join(s, "L")) == "link" else ["the symlink was replaced"]
        with open(os.path.join(s, "target.npy"), "rb") as f:
            p += [] if f.read().startswith(b"\x93NUMPY") else ["the link's target was not written"]
        return p + ([] if os.stat(os.path.join(s, "target.npy")).st_mode & 0o777 == 0o600 else ["the target lost its mode"])

    cases.append(_case("1", "out-symlink", run + ["{s}/L"], link_check, setup=link_setup))
    if ROOT:
        so = corpus.path("relu", "relu.so")
        for slug, argv in [
            ("prelink-o", ["prelink", corpus.path("relu8", "relu8_cpu3.packed.so"), "--core", "3", "-o", "{s}/F"]),
            ("pack-o", ["pack", so, "-o", "{s}/F"]),
            ("strip-o", ["strip", so, "-o", "{s}/F"]),
            ("layout-svg", ["layout", so, "--svg", "{s}/F"]),
            ("profile-svg", ["profile", relu, "--fn", "relu_forward", "--in", x, "--svg", "{s}/F"]),
            ("legalize-ir-o", ["legalize-ir", corpus.path("relu", "relu.ll"), "-o", "{s}/F"]),
        ]:
            cases.append(_case("1", f"{slug}-mknod-null", ["{q7}"] + argv, lambda o, s: [] if file_type(os.path.join(s, "F")) == "chr" and o.status == 0 else [f"F is a {file_type(os.path.join(s, 'F'))}, status {o.status}"], setup=lambda s: make_node(os.path.join(s, "F"), "chr-null")))
    return cases


def _build_argv(*extra):
    return ["{q7}", "build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor"] + list(extra)


def item2_3_5(corpus):
    relu_cpp = os.path.join(corpus.repo, "examples/relu/relu.cpp")
    cases = []

    def planted(s):
        copy(relu_cpp, os.path.join(s, "relu.cpp"))
        write(os.path.join(s, "victim"), OLD)
        os.makedirs(os.path.join(s, "b"), mode=0o700)
        for n in ("relu.s", "relu.ll", "relu.d", "relu.o", "relu.q7.ll", "relu.q7.s", "wrapper.cpp", "wrapper.s", "wrapper.ll", "wrapper.d", "wrapper.o", "librelu.so", "librelu.stripped.so", "librelu.packed.so", "q7-native.json"):
            os.symlink(os.path.join(s, "victim"), os.path.join(s, "b", n))

    def victim_ok(o, s):
        with open(os.path.join(s, "victim"), "rb") as f:
            return ([] if f.read() == OLD else ["a generated file was written through a planted symlink"]) + ([] if o.status == 0 else [f"status {o.status}"])

    cases.append(_case("2", "cli-build-dir-planted-symlinks", _build_argv("--build-dir", "b", "--", "relu.cpp"), victim_ok, setup=planted))

    def shared_dir(s):
        copy(relu_cpp, os.path.join(s, "relu.cpp"))
        os.makedirs(os.path.join(s, "b"))
        os.chmod(os.path.join(s, "b"), 0o777)

    cases.append(_case("2", "cli-build-dir-0777-refused", _build_argv("--build-dir", "b", "--", "relu.cpp"), lambda o, s: [] if o.status == 1 and os.listdir(os.path.join(s, "b")) == [] else [f"status {o.status}, b holds {os.listdir(os.path.join(s, 'b'))[:5]}"], setup=shared_dir, names=("b",)))
    for name in ("wrapper.cpp", "librelu.so", "librelu.packed.so", "relu.o"):

        def same_dir(s, name=name):
            copy(relu_cpp, os.path.join(s, name))
            os.chmod(s, 0o700)

        def unchanged(o, s, name=name):
            with open(os.path.join(s, name), "rb") as f, open(relu_cpp, "rb") as g:
                return [] if f.read() == g.read() else [f"the build overwrote the source {name}"]

        cases.append(_case("3", f"source-named-{name}", _build_argv("--build-dir", ".", "--", name), unchanged, setup=same_dir, names=(name,)))

    def toml_same_dir(s):
        copy(relu_cpp, os.path.join(s, "wrapper.cpp"))
        os.chmod(s, 0o700)
        write(os.path.join(s, "q7.toml"), 'name = "librelu"\nfunctions = ["relu_forward"]\nschemas = ["relu_forward(Tensor _0) -> Tensor"]\nsources = ["wrapper.cpp"]\nbuild_dir = "."\n')

    cases.append(_case("3", "toml-source-wrapper.cpp", ["{q7}", "build", "--toolchain", "open"], lambda o, s: [] if open(os.path.join(s, "wrapper.cpp"), "rb").read() == open(relu_cpp, "rb").read() else ["the build overwrote wrapper.cpp"], setup=toml_same_dir, names=("wrapper.cpp",)))

    def dash_setup(s):
        copy(relu_cpp, os.path.join(s, "-relu.cpp"))
        write(os.path.join(s, "@b.cpp"), "int helper(int x) { return x + 1; }\n")
        write(os.path.join(s, "b.cpp"), f"-include {s}/planted.h\n")
        write(os.path.join(s, "planted.h"), "#error PLANTED\n")

    cases.append(_case("5", "dash-source-after-dashdash", _build_argv("--build-dir", "out", "--", "-relu.cpp"), _status(0), setup=dash_setup))
    cases.append(_case("5", "at-source-refused", _build_argv("--build-dir", "out", "--", "-relu.cpp", "@b.cpp"), lambda o, s: (["a response file was applied (PLANTED)"] if "PLANTED" in o.stderr else []) + ([] if o.status == 1 else [f"status {o.status}"]), setup=dash_setup, names=("@b.cpp",)))

    def toml_dash(s):
        dash_setup(s)
        write(os.path.join(s, "q7.toml"), 'name = "librelu"\nfunctions = ["relu_forward"]\nschemas = ["relu_forward(Tensor _0) -> Tensor"]\nsources = ["-relu.cpp", "@b.cpp"]\nbuild_dir = "out"\n')

    cases.append(_case("5", "toml-at-source-refused", ["{q7}", "build", "--toolchain", "open"], lambda o, s: ["a response file was applied (PLANTED)"] if "PLANTED" in o.stderr else [], setup=toml_dash, names=("@b.cpp",)))
    return cases


def item8(corpus):
    x = corpus.path("x4.npy")
    cases = []
    for cmd in ("run", "profile"):
        for engine in ("jit", "interp"):
            argv = ["{q7}", cmd, corpus.path("misc"), "--fn", "spin_forward", "--in", x, "--engine", engine]

            def check(o, s, cmd=cmd):
                p = [] if o.status == 130 else [f"exit status {o.status} after SIGINT, want 130"]
                if o.stop_seconds is not None and o.stop_seconds > 1.0:
                    p.append(f"stopped {o.stop_seconds:.2f} s after SIGINT (asked: 0.1 s)")
                return p + ([] if "interrupted" in o.stderr else ["no `interrupted` line"])

            cases.append(_case("8", f"sigint-{cmd}-{engine}", argv, check, signal=(1.5, signal.SIGINT, "pid"), temporaries_ok=False))
    for cmd in ("run", "profile"):
        argv = ["{q7}", cmd, corpus.path("wait"), "--fn", "wait_forever", "--in", x]
        cases.append(_case("8", f"deadlock-8-cores-{cmd}", argv, lambda o, s: [] if o.status == 1 and "deadlock" in o.stderr and all(f"core {c} at pc" in o.stderr for c in range(8)) else [f"status {o.status}: {o.stderr.strip().splitlines()[-1:]}"], limit=120))
    return cases


def item9(corpus):
    n = corpus.native
    x = os.path.join(n, "x16.npy")
    cases = [
        _case("9", "native-heap-growth", ["{q7}", "run", os.path.join(n, "ngrow"), "--fn", "grow", "--in", x, "--native"], lambda o, s: [] if o.status == 1 and "heap-limit" in o.stderr else [f"status {o.status}: {o.stderr.strip().splitlines()[-1:]}"], limit=120),
        _case("9", "native-fork", ["{q7}", "run", os.path.join(n, "nfork"), "--fn", "forked", "--in", x, "--native"], lambda o, s: [] if o.status == 1 and "tried to create a process" in o.stderr else [f"status {o.status}: {o.stderr.strip().splitlines()[-1:]}"], limit=120),
    ]
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):

        def check(o, s, sig=sig):
            if sig == signal.SIGKILL:
                return []
            left = [e for e in os.listdir(os.path.join(n, "nspin")) if e.startswith("native-run-")]
            p = [] if o.status == 128 + sig else [f"status {o.status}"]
            return p + ([f"run directories left: {left}"] if left else [])

        cases.append(_case("9", f"native-spin-{sig.name}", ["{q7}", "run", os.path.join(n, "nspin"), "--fn", "spin", "--in", x, "--native", "--timeout", "100"], check, signal=(3.0, sig, "pid"), temporaries_ok=True, limit=120))
    def bounded(o, s):
        p = [] if o.status == 0 else [f"status {o.status}"]
        return p + ([] if 0 < o.peak_kib < 100 * 1024 else [f"q7 held {o.peak_kib} KiB for 10 M lines"])

    cases.append(_case("9", "native-10M-lines-q7-memory", ["{q7}", "run", os.path.join(n, "nflood"), "--fn", "flood", "--in", x, "--int", "10000000", "--native", "--json"], bounded, limit=300))
    return cases


def item10(corpus):
    cases = []
    x800 = corpus.path("x800.npy")
    runs = [
        ("race", ["run", corpus.path("race"), "--fn", "race_forward", "--in", x800, "--int", "2", "--int", "650"]),
        ("stray-store", ["run", corpus.path("oob"), "--fn", "oob_forward", "--in", x800, "--int", "5", "--int", "3"]),
        ("unwritten-strict", ["run", corpus.path("partial"), "--fn", "evens_forward", "--in", x800, "--strict"]),
        ("read-unwritten", ["run", corpus.path("misc"), "--fn", "peek_forward", "--in", corpus.path("x64.npy")]),
        ("fault", ["run", corpus.path("partial"), "--fn", "fault_forward", "--in", x800]),
    ]
    for slug, argv in runs:

        def setup(s):
            write(os.path.join(s, "y.npy"), OLD)

        def check(o, s):
            with open(os.path.join(s, "y.npy"), "rb") as f:
                data = f.read()
            return ([] if o.status == 1 else [f"status {o.status}"]) + ([] if data == OLD else ["a failed run replaced --out"])

        cases.append(_case("10", slug, ["{q7}"] + argv + ["--out", "{s}/y.npy"], check, setup=setup))
    return cases


def _flood_bytes():
    return sum(len(f"line {i} of the console flood .....\n") for i in range(100000))


def item11(corpus):
    cases = []
    total = _flood_bytes()

    def bare_check(o, s):
        size = os.path.getsize(o.stdout_path)
        return [] if size == total and o.status == 0 else [f"stdout {size} bytes of {total}, status {o.status}"]

    cases.append(_case("11", "run-bare-3MB-console", ["{q7}", "run-bare", corpus.path("bare", "flood.de212-O2.elf"), "--board", "de212"], bare_check))
    line = len("[core 0] " + "x" * 99 + "\n")

    def lines_check(o, s):
        size = os.path.getsize(o.stdout_path)
        claims = "dropped" in o.stderr or "cut" in o.stderr
        if size >= 15000 * 100 and claims:
            return [f"printed {size} bytes and claims bytes were dropped: {o.stderr.strip().splitlines()[-1:]}"]
        if size < 15000 * 100 and not claims:
            return [f"printed {size} bytes of {15000 * 100}, silently"]
        return [] if o.status == 0 else [f"status {o.status}"]

    cases.append(_case("11", "run-15000-lines", ["{q7}", "run", corpus.path("pyops"), "--fn", "print_lines", "--in", corpus.path("x4.npy"), "--int", "15000"], lines_check))

    def chatty_check(o, s):
        size = os.path.getsize(o.stdout_path)
        claims = "dropped" in o.stderr or "cut" in o.stderr or "dropped" in o.stdout[-300:]
        if size < 3 * 1024 * 1024 and not claims:
            return [f"printed {size} bytes of {3 * 1024 * 1024}, silently"]
        if size >= 3 * 1024 * 1024 and claims:
            return ["printed everything and claims bytes were dropped"]
        return []

    cases.append(_case("11", "run-3MiB-no-newline", ["{q7}", "run", corpus.path("partial"), "--fn", "chatty_forward", "--in", corpus.path("x800.npy"), "--cores", "1"], chatty_check, ok=(0, 1)))
    del line
    return cases


def smaller(corpus):
    cases = []
    misc, x4 = corpus.path("misc"), corpus.path("x4.npy")
    scale = ["{q7}", "run", misc, "--fn", "scale_forward", "--in", x4, "--scalar", "1", "--double", "1"]
    cases.append(_case("s", "arg-below-i64-refused", scale + ["--arg=-9223372036854775809"], lambda o, s: [] if o.status in (1, 2) and "9223372036854775809" in o.stderr else [f"status {o.status}: {o.stderr.strip()[-200:]}"], ok=(1, 2)))
    cases.append(_case("s", "arg-2p63-echoed-exactly", scale + ["--arg", "9223372036854775808"], lambda o, s: [] if o.status in (1, 2) and "9223372036854775808" in o.stderr and "9223372036854776000" not in o.stderr else [f"status {o.status}: {o.stderr.strip()[-200:]}"], ok=(1, 2)))
    cases.append(_case("s", "dst-shape-2p64-in-words", ["{q7}", "run", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--dst-shape", "18446744073709551615"], lambda o, s: [] if o.status == 1 and not any(len(w.strip(",.()")) >= 30 and w.strip(",.()").isdigit() for w in o.stderr.split()) else [f"status {o.status}: {o.stderr.strip()[-200:]}"]))
    with open(corpus.path("bare", "hello.de212-O2.elf"), "rb") as f:
        elf = f.read()
    x86 = bytearray(elf)
    x86[18:20] = struct.pack("<H", 62)
    cases.append(_case("s", "run-bare-x86-refused", ["{q7}", "run-bare", "{s}/x86.elf", "--board", "de212"], lambda o, s: [] if o.status == 1 and "Xtensa" in o.stderr else [f"status {o.status}"], setup=lambda s: write(os.path.join(s, "x86.elf"), bytes(x86)), names=("x86.elf",)))
    phoff = struct.unpack_from("<I", elf, 28)[0]
    overlap = bytearray(elf)
    overlap[phoff + 32 + 8 : phoff + 32 + 16] = elf[phoff + 8 : phoff + 16]
    cases.append(_case("s", "run-bare-overlap-refused", ["{q7}", "run-bare", "{s}/overlap.elf", "--board", "de212"], lambda o, s: [] if o.status == 1 and "overlap" in o.stderr else [f"status {o.status}: {o.stderr.strip()[-200:]}"], setup=lambda s: write(os.path.join(s, "overlap.elf"), bytes(overlap)), names=("overlap.elf",)))
    for n in (241, 250, 255):
        name = "y" * (n - 4) + ".npy"
        cases.append(_case("s", f"out-name-{n}-bytes", ["{q7}", "run", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--out", "{s}/" + name], _status(0)))

    def stale_setup(s):
        dead = _dead_pid()
        p = write(os.path.join(s, f".q7-{dead}-AbC123.tmp"), b"left by a SIGKILL")
        old = time.time() - 600
        os.utime(p, (old, old))

    cases.append(_case("s", "stale-out-temporary-cleaned", ["{q7}", "run", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--out", "{s}/y.npy"], lambda o, s: [n for n in os.listdir(s) if n.startswith(".q7-")], setup=stale_setup))
    cases.append(_case("s", "truncated-object-rebuilt", ["{q7}", "build", "--toolchain", "open"], _rebuilt_check, setup=lambda s: _truncated_setup(s, corpus), limit=120))
    # NumPy reads the last of duplicate keys; q7 must agree (copy_bytes keeps the dtype).
    dup = mutate.npy_bytes("<f4", (4,), struct.pack("<4i", 1, 2, 3, 4), header="{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'descr': '<i4', }")
    cases.append(_case("s", "npy-duplicate-key-last-wins", ["{q7}", "run", corpus.path("pyops"), "--fn", "copy_bytes", "--in", "{s}/d.npy", "--out", "{s}/o.npy"], _dup_check, setup=lambda s: write(os.path.join(s, "d.npy"), dup)))
    yes = mutate.npy_bytes("<f4", (4,), bytes(16), header="{'descr': '<f4', 'fortran_order': 'yes', 'shape': (4,), }")
    cases.append(_case("s", "npy-fortran-yes-refused", ["{q7}", "run", corpus.path("pyops"), "--fn", "copy_bytes", "--in", "{s}/f.npy"], _status(1), setup=lambda s: write(os.path.join(s, "f.npy"), yes), names=("f.npy",)))
    nrelu = os.path.join(corpus.native, "nrelu")
    cases.append(_case("s", "asan-under-memory-limit-says-why", ["prlimit", "--as=4000000000", "{q7}", "run", nrelu, "--fn", "relu_forward", "--in", os.path.join(corpus.native, "x16.npy"), "--native"], lambda o, s: [] if o.status != 0 and not o.stderr.rstrip().endswith("stopped by a sanitizer") else [f"status {o.status}: {o.stderr.strip().splitlines()[-1:]}"], limit=120))
    src = os.path.join(corpus.repo, "crates/q7-py/src")
    cases.append(_case("bridge", "no-unsafe-in-q7-py", ["grep", "-rnE", r"unsafe *(\{|fn |impl )", src], lambda o, s: [] if o.status == 1 else [f"unsafe in q7-py: {o.stdout.strip()[:300]}"], ok=(0, 1), error_required=False))
    return cases


def _dup_check(o, s):
    from common import numpy_load

    y, why = numpy_load(os.path.join(s, "o.npy"))
    if o.status != 0 or y is None:
        return [f"status {o.status} {why or ''}"]
    return [] if str(y.dtype) == "int32" else [f"q7 read dtype {y.dtype}; NumPy reads the last key, int32"]


def _truncated_setup(s, corpus):
    copy(os.path.join(corpus.repo, "examples/relu/relu.cpp"), os.path.join(s, "relu.cpp"))
    copy(os.path.join(corpus.repo, "examples/relu/q7.toml"), os.path.join(s, "q7.toml"))
    env = {**corpus.env, "TMPDIR": os.path.join(s, "tmp")}
    os.makedirs(os.path.join(s, "tmp"), exist_ok=True)
    subprocess.run([corpus.q7, "build", "--toolchain", "open"], cwd=s, env=env, capture_output=True, check=True)
    for name in ("relu.o", "librelu.so"):
        p = os.path.join(s, "build", name)
        with open(p, "r+b") as f:
            f.truncate(os.path.getsize(p) // 2)
        future = time.time() + 3600
        os.utime(p, (future, future))


def _rebuilt_check(o, s):
    problems = [] if o.status == 0 else [f"status {o.status}: {o.stderr.strip().splitlines()[-1:]}"]
    for name in ("relu.o", "librelu.so"):
        with open(os.path.join(s, "build", name), "rb") as f:
            data = f.read()
        if not data.startswith(b"\x7fELF") or struct.unpack_from("<I", data, 32)[0] + 40 * struct.unpack_from("<H", data, 48)[0] > len(data):
            problems.append(f"the truncated {name} was trusted, not rebuilt")
    return problems


def _dead_pid():
    pid = 4_000_000
    while os.path.exists(f"/proc/{pid}"):
        pid -= 1
    return pid


def unlink_window(corpus):
    """Found by reading q7-target/src/fs.rs: a regular --out is unlinked
    before the rename; a SIGKILL between the two loses the user's file (and
    the next run removes the temporary holding the new one)."""
    if not shutil.which("strace"):
        return []
    argv = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2", "-e", "inject=rename,renameat,renameat2:delay_enter=2000000", "{q7}", "run", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--out", "{s}/y.npy"]

    def check(o, s):
        return [] if os.path.exists(os.path.join(s, "y.npy")) else ["--out y.npy is gone: SIGKILL between unlink and rename; the new output is only in " + ", ".join(n for n in os.listdir(s) if n.startswith(".q7-"))]

    return [Case("repro", "extra-out-unlink-before-rename", argv, setup=lambda s: write(os.path.join(s, "y.npy"), OLD), check=check, signal=(1.0, signal.SIGKILL, "group"), temporaries_ok=True, note="found: SIGKILL between unlink and rename deletes --out")]


def repro_cases(corpus, python_cases):
    cases = item1(corpus) + item2_3_5(corpus) + item8(corpus) + item9(corpus) + item10(corpus) + item11(corpus) + smaller(corpus) + unlink_window(corpus)
    # The Python side of items 2, 4, 6, 7, 8, 11 and the bridge, as scenarios.
    wanted = {
        "load-bdir-planted-links": "2", "load-default-dir-other-owner": "2", "load-default-dir-symlink": "2", "load-bdir-0777": "2",
        "load-wrapper-source-in-build-dir": "3", "lib-escape-metadata-relative": "4", "lib-escape-metadata-absolute": "4", "lib-escape-member": "4",
        "load-dash-source": "5", "load-at-source": "5", "load-edited-shape-raises": "6", "load-compute-error-then-fixed": "6",
        "call-sparse": "7", "call-meta": "7", "call-none": "7", "sigint-spin": "8", "sigint-spin-profile": "8", "call-print-lines": "11",
        "stats-op-object": "s",
    }
    for c in python_cases:
        if c.note in wanted:
            c.note = f"#26 {wanted[c.note]}: {c.note} (Python)"
    return cases
