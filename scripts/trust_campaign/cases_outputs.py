"""Output paths of every kind (devices, FIFOs, links, directories, long
names) for every command that writes one, outputs written over their own
input, and several q7 at once on one build directory or output."""

import os

from common import copy, fifo_reader, file_type, make_node, write
from harness import Case

OLD = b"the user's old file\n"


def _writers(corpus):
    """(name, argv with {T} for the output, magic of a good output, kind)."""
    relu, x = corpus.path("relu"), corpus.path("x64.npy")
    so = corpus.path("relu", "relu.so")
    return [
        ("run", ["run", relu, "--fn", "relu_forward", "--in", x, "--out", "{T}"], b"\x93NUMPY", "file"),
        ("run-inplace", ["run", relu, "--fn", "relu_forward", "--in", "{T}", "--out", "{T}"], b"\x93NUMPY", "file"),
        ("profile-svg", ["profile", relu, "--fn", "relu_forward", "--in", x, "--svg", "{T}"], b"<", "file"),
        ("profile-folded", ["profile", relu, "--fn", "relu_forward", "--in", x, "--folded", "{T}"], b"", "file"),
        ("prelink", ["prelink", corpus.path("relu8", "relu8_cpu3.packed.so"), "--core", "3", "-o", "{T}"], b"", "file"),
        ("pack", ["pack", so, "-o", "{T}"], b"\x7fELF", "file"),
        ("pack-stripped", ["pack", so, "-o", "{s}/p.packed.so", "-s", "{T}"], b"\x7fELF", "file"),
        ("strip", ["strip", so, "-o", "{T}"], b"\x7fELF", "file"),
        ("layout-svg", ["layout", so, "--svg", "{T}"], b"<", "file"),
        ("legalize-ir", ["legalize-ir", corpus.path("relu", "relu.ll"), "-o", "{T}"], b"", "file"),
        ("lsp", ["lsp", "-o", "{T}", "--core", "3"], None, "dir"),
        ("build-dir", ["build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", "{T}", "--", os.path.join(corpus.repo, "examples/relu/relu.cpp")], None, "dir"),
        ("carve", ["inspect", "carve", corpus.path("fixtures", "kernels_gnu.so"), "--out", "{T}"], None, "dir"),
    ]


FILE_TARGETS = [
    "new", "regular", "readonly", "chr-null", "chr-full", "fifo", "fifo-late", "link-regular", "link-chr", "link-chain", "dangling",
    "link-loop", "link-dir", "dir", "name-255", "name-256", "through-file", "new-parents", "socket", "block", "hardlink", "link-abs-regular",
]
DIR_TARGETS = ["new", "dir", "regular", "chr-null", "fifo", "link-dir", "dangling", "link-loop", "through-file", "socket"]


def _prepare(s, kind, valid_input):
    """Makes the target of `kind` in scratch `s`; returns its path (the {T})."""
    t = os.path.join(s, "target")
    if kind in ("regular", "readonly", "hardlink", "link-regular", "link-chain", "link-abs-regular"):
        write(os.path.join(s, "victim"), valid_input or OLD, 0o444 if kind == "readonly" else 0o640)
    if kind == "new":
        pass
    elif kind in ("regular", "readonly"):
        os.rename(os.path.join(s, "victim"), t)
    elif kind == "hardlink":
        os.link(os.path.join(s, "victim"), t)
    elif kind in ("chr-null", "chr-full", "fifo", "socket", "block"):
        make_node(t, kind)
    elif kind == "fifo-late":
        make_node(t, "fifo")
    elif kind == "link-regular":
        os.symlink("victim", t)
    elif kind == "link-abs-regular":
        os.symlink(os.path.join(s, "victim"), t)
    elif kind == "link-chr":
        make_node(os.path.join(s, "dev"), "chr-null")
        os.symlink("dev", t)
    elif kind == "link-chain":
        os.symlink("victim", os.path.join(s, "l1"))
        os.symlink("l1", os.path.join(s, "l2"))
        os.symlink("l2", t)
    elif kind == "dangling":
        os.symlink("made-by-q7", t)
    elif kind == "link-loop":
        os.symlink("target", t)
    elif kind == "link-dir":
        os.makedirs(os.path.join(s, "d"))
        os.symlink("d", t)
    elif kind == "dir":
        os.makedirs(t)
        write(os.path.join(t, "keep"), OLD)
    elif kind == "name-255":
        t = os.path.join(s, "n" * 251 + ".out")
    elif kind == "name-256":
        t = os.path.join(s, "n" * 252 + ".out")
    elif kind == "through-file":
        write(os.path.join(s, "afile"), OLD)
        t = os.path.join(s, "afile", "out")
    elif kind == "new-parents":
        t = os.path.join(s, "new", "parents", "out")
    return t


def _expect(kind, writer_kind, status, s, t, magic, fifo_data, stderr=""):
    """Problems with what happened at the target, per kind."""
    ok = status == 0
    after = file_type(t)
    problems = []

    def content_ok(path):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            return f"unreadable: {e}"
        if data == OLD:
            return "still the old contents"
        if magic and not data.startswith(magic):
            return f"does not start with {magic!r}"
        return None

    if writer_kind == "dir":
        if kind in ("new", "dir", "link-dir") and not ok:
            problems.append(f"refused an output directory of kind {kind}")
        # No directory is made at a link's missing target (as `mkdir -p`); the refusal says why.
        if kind == "dangling" and (ok or "is a dangling symbolic link (to made-by-q7)" not in stderr):
            problems.append(f"a dangling link as the output directory: status {status}, not named as one: {stderr.strip()[-200:]}")
        if kind in ("regular", "chr-null", "fifo", "socket") and after != {"regular": "file", "chr-null": "chr"}.get(kind, kind):
            problems.append(f"{kind} became {after}")
        if kind == "dir" and not os.path.exists(os.path.join(t, "keep")):
            problems.append("a file in the output directory was removed")
        return problems
    if kind in ("new", "regular", "readonly", "name-255", "new-parents", "hardlink"):
        if not ok:
            problems.append(f"writing a {kind} output failed")
        elif after != "file":
            problems.append(f"output is a {after}")
        elif (why := content_ok(t)) is not None:
            problems.append(f"output {why}")
        if kind in ("regular", "readonly") and ok and after == "file":
            mode = os.stat(t).st_mode & 0o777
            want = 0o444 if kind == "readonly" else 0o640
            if mode != want:
                problems.append(f"mode {mode:o}, was {want:o}")
    elif kind in ("link-regular", "link-chain", "link-abs-regular"):
        if after != "link":
            problems.append(f"the link became a {after}")
        if ok and (why := content_ok(os.path.join(s, "victim"))) is not None:
            problems.append(f"the link's target {why}")
    elif kind in ("chr-null", "link-chr"):
        node = t if kind == "chr-null" else os.path.join(s, "dev")
        if file_type(node) != "chr":
            problems.append(f"the character device became {file_type(node)}")
        if kind == "link-chr" and after != "link":
            problems.append(f"the link became a {after}")
        if not ok:
            problems.append("writing to a character device failed")
    elif kind == "chr-full":
        if after != "chr":
            problems.append(f"the device became {after}")
        if ok:
            problems.append("reported success writing to a full device (ENOSPC lost)")
    elif kind in ("fifo", "fifo-late"):
        if after != "fifo":
            problems.append(f"the FIFO became {after}")
        if ok:
            got = fifo_data[0] if fifo_data else None
            if not isinstance(got, bytes) or not got or (magic and not got.startswith(magic)):
                problems.append(f"the FIFO's reader got {got!r:.60}")
    elif kind == "dangling":
        made = os.path.join(s, "made-by-q7")
        if ok and (after != "link" or file_type(made) != "file"):
            problems.append(f"dangling link: link {after}, target {file_type(made)}")
    elif kind in ("link-loop", "link-dir", "dir", "name-256", "through-file", "socket", "block"):
        if ok:
            problems.append(f"reported success writing to {kind}")
        want = {"link-loop": "link", "link-dir": "link", "dir": "dir", "socket": "socket", "block": "block"}.get(kind)
        if want and after != want:
            problems.append(f"{kind} became {after}")
        if kind == "dir" and not os.path.exists(os.path.join(t, "keep")):
            problems.append("a file in the directory was removed")
    if kind == "hardlink" and ok:
        with open(os.path.join(s, "victim"), "rb") as f:
            if f.read() != OLD:
                problems.append("the other hard link's contents changed")
    return problems


def outpath_cases(seed, corpus):
    cases = []
    i = 0
    root = os.geteuid() == 0
    with open(corpus.path("x64.npy"), "rb") as f:
        x64 = f.read()
    for name, argv, magic, writer_kind in _writers(corpus):
        for kind in FILE_TARGETS if writer_kind == "file" else DIR_TARGETS:
            if kind in ("chr-null", "chr-full", "link-chr", "block") and not root:
                continue
            if name == "run-inplace" and kind not in ("regular", "link-regular", "fifo", "new"):
                continue
            valid = x64 if name == "run-inplace" else None
            state = {}

            def setup(s, kind=kind, valid=valid, state=state, name=name):
                t = _prepare(s, kind, valid)
                if name == "run-inplace" and kind in ("new", "fifo"):
                    write(t, x64) if kind == "new" else None
                state["t"] = t
                state["sink"] = []
                if kind == "fifo":
                    fifo_reader(t, state["sink"])
                elif kind == "fifo-late":
                    fifo_reader(t, state["sink"], delay=1.0)

            def check(o, s, kind=kind, state=state, magic=magic, writer_kind=writer_kind):
                return _expect(kind, writer_kind, o.status, s, state["t"], magic, state["sink"], o.stderr)

            t_arg = "{s}/" + {"name-255": "n" * 251 + ".out", "name-256": "n" * 252 + ".out", "through-file": "afile/out", "new-parents": "new/parents/out"}.get(kind, "target")
            full = ["{q7}"] + [a.replace("{T}", t_arg) for a in argv]
            if name == "run-inplace" and kind == "fifo":
                continue  # a FIFO cannot be both the input and the output
            cases.append(Case("outpaths", f"out-{i:04d}", full, setup=setup, check=check, names=("target", "afile", "nnnn"), ok=(0, 1), limit=60, note=f"{name} -> {kind}"))
            i += 1
    return cases


def inplace_cases(corpus):
    """The output path is the input's own (`q7 pack x.so -o x.so`)."""
    writers = [
        ("pack", "relu.so", ["pack", "{T}", "-o", "{T}"], b"\x7fELF"),
        ("strip", "relu.so", ["strip", "{T}", "-o", "{T}"], b"\x7fELF"),
        ("pack-s", "relu.so", ["pack", "{T}", "-o", "{s}/p.so", "-s", "{T}"], b"\x7fELF"),
        ("legalize-ir", "relu.ll", ["legalize-ir", "{T}", "-o", "{T}"], b""),
        ("prelink", "relu8_cpu3.packed.so", ["prelink", "{T}", "--core", "3", "-o", "{T}"], b""),
        ("run-image-out", "relu.packed.so", ["run", "{T}", "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--out", "{T}"], b"\x93NUMPY"),
        ("layout-svg", "relu.so", ["layout", "{T}", "--svg", "{T}"], b"<"),
    ]
    cases = []
    for i, (name, src, argv, magic) in enumerate(writers):
        origin = corpus.path("relu8" if src.startswith("relu8") else "relu", src)

        def setup(s, origin=origin, src=src):
            copy(origin, os.path.join(s, src))

        def check(o, s, src=src, magic=magic, origin=origin):
            with open(os.path.join(s, src), "rb") as f:
                data = f.read()
            with open(origin, "rb") as f:
                before = f.read()
            if o.status == 0 and (not data or not data.startswith(magic)):
                return [f"in place: status 0 but {src} holds {len(data)} bytes starting {data[:8]!r}"]
            if o.status != 0 and data != before:
                return [f"in place: failed and changed {src}"]
            return []

        full = ["{q7}"] + [a.replace("{T}", "{s}/" + src) for a in argv]
        cases.append(Case("outpaths", f"inplace-{i:02d}", full, setup=setup, check=check, ok=(0, 1), names=(src,), note=f"{name} in place"))
    return cases


def concurrent_cases(corpus, reference):
    """Two q7 at once on one build directory or one --out."""
    build = ["{q7}", "build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", "b", "--", "relu.cpp"]
    run = ["{q7}", "run", corpus.path("relu8"), "--fn", "relu_forward", "--in", corpus.path("x800.npy"), "--out", "y.npy"]
    cases = []
    for i, (what, argv, n) in enumerate([("build", build, 2), ("build", build, 3), ("run", run, 2), ("run", run, 4)] * 3):
        script = "pids=(); for i in $(seq " + str(n) + "); do \"$@\" & pids+=($!); done; s=0; for p in \"${pids[@]}\"; do wait $p || s=$?; done; exit $s"

        def setup(s):
            copy(os.path.join(corpus.repo, "examples/relu/relu.cpp"), os.path.join(s, "relu.cpp"))

        def check(o, s, what=what):
            if what == "build":
                p = os.path.join(s, "b", "librelu.packed.so")
                if not os.path.exists(p):
                    return ["no librelu.packed.so after concurrent builds"]
                with open(p, "rb") as f:
                    return [] if f.read() == reference else ["concurrent builds made a librelu.packed.so unlike a clean build's"]
            from common import check_relu

            return check_relu(corpus.path("x800.npy"), os.path.join(s, "y.npy"), float_only=True)

        cases.append(Case("outpaths", f"concurrent-{i:02d}", ["bash", "-c", script, "bash"] + argv, setup=setup, check=check, ok=(0,), error_required=False, limit=120, note=f"{n} x {what} at once"))
    return cases
