"""Mutated-input cases: .npy tensors, ELF images and ar archives given to
the q7 commands that read them."""

import os
import struct

import mutate
from common import check_copy, check_relu, copy, fifo_feeder, make_node, rng_for, write
from harness import Case


def _valid_npy(rng):
    shape, payload = mutate.base_npy(rng)
    return mutate.npy_bytes("<f4", shape, payload), shape, payload


def _typed_npy(rng):
    """A valid .npy of another dtype (copy_bytes takes any the device has)."""
    descr, fmt = rng.choice([("<i4", "i"), ("<f2", "e"), ("|u1", "B"), ("|i1", "b"), ("<i2", "h"), ("<f4", "f")])
    shape = rng.choice([(8,), (2, 3), (1,), (0,), ()])
    n = 1
    for d in shape:
        n *= d
    lo, hi = {"B": (0, 255), "b": (-128, 127), "h": (-1000, 1000), "i": (-(2**31), 2**31 - 1)}.get(fmt, (-100, 100))
    vals = [rng.randint(lo, hi) if fmt in "Bbhi" else rng.uniform(lo, hi) for _ in range(n)]
    return mutate.npy_bytes(descr, shape, struct.pack(f"<{n}{fmt}", *vals)), shape


def npy_cases(seed, count, corpus):
    cases = []
    for i in range(count):
        rng = rng_for(seed, "npy", i)
        kind = rng.randrange(100)
        special = None
        if kind < 30:
            data, shape, payload = _valid_npy(rng)
            data = mutate.mutate_bytes(rng, data, (0, 128))
        elif kind < 60:
            shape, payload = mutate.base_npy(rng)
            header = mutate.header_mutation(rng, shape, payload)
            data = mutate.npy_bytes("<f4", shape, payload, version=rng.choice([1, 1, 1, 2, 3]), header=header)
        elif kind < 70:
            data, shape, payload = _valid_npy(rng)
            data = data[: len(data) - len(payload)] + mutate.structural(rng, payload)
        elif kind < 80:
            data = bytearray(_valid_npy(rng)[0])
            field = rng.randrange(3)
            if field == 0:
                data[6] = rng.choice([0, 2, 3, 4, 255])
            elif field == 1:
                data[7] = rng.choice([1, 255])
            else:
                data[8:10] = struct.pack("<H", rng.choice([0, 1, 0xFFFF, 0x7FFF, len(data), 63, 65]))
            data = bytes(data)
        elif kind < 92:
            data = _typed_npy(rng)[0]
            if rng.random() < 0.5:
                data = mutate.mutate_bytes(rng, data, (0, 128))
        else:
            data = b""
            special = rng.choice(["empty", "dev-zero", "dev-urandom", "fifo", "dir", "loop", "sparse", "missing", "chr-null"])
        op = rng.choice(["relu", "relu", "relu8", "copy", "copy", "profile", "image"])
        cases.append(_npy_case(i, data, special, op, corpus))
    return cases


def _npy_case(i, data, special, op, corpus):
    x = "{s}/in.npy"
    feeders = []

    def setup(s, data=data, special=special):
        path = os.path.join(s, "in.npy")
        if special is None:
            write(path, data)
        elif special == "empty":
            write(path, b"")
        elif special == "dev-zero":
            os.symlink("/dev/zero", path)
        elif special == "dev-urandom":
            os.symlink("/dev/urandom", path)
        elif special == "chr-null":
            make_node(path, "chr-null")
        elif special == "fifo":
            make_node(path, "fifo")
            feeders.append(fifo_feeder(path, mutate.npy_bytes("<f4", (4,), struct.pack("<4f", 1, -2, 3, -4))))
        elif special == "dir":
            os.makedirs(path)
        elif special == "loop":
            os.symlink("in.npy", path)
        elif special == "sparse":
            with open(path, "wb") as f:
                f.write(mutate.npy_bytes("<f4", (2**38,), b""))
                f.truncate(2**40)
        # "missing": no file

    limits = ["--max-insns", "200000000", "--timeout", "20"]
    if op == "relu":
        argv = ["{q7}", "run", corpus.path("relu"), "--fn", "relu_forward", "--in", x, "--out", "{s}/out.npy"] + limits
    elif op == "relu8":
        argv = ["{q7}", "run", corpus.path("relu8"), "--fn", "relu_forward", "--in", x, "--out", "{s}/out.npy"] + limits
    elif op == "copy":
        argv = ["{q7}", "run", corpus.path("pyops"), "--fn", "copy_bytes", "--in", x, "--out", "{s}/out.npy"] + limits
    elif op == "profile":
        argv = ["{q7}", "profile", corpus.path("relu"), "--fn", "relu_forward", "--in", x, "--out", "{s}/out.npy"] + limits
    else:
        argv = ["{q7}", "run", corpus.path("relu", "relu.packed.so"), "--fn", "relu_forward", "--in", x, "--out", "{s}/out.npy"] + limits

    def check(o, s, op=op, special=special):
        out = os.path.join(s, "out.npy")
        if o.status != 0:
            return [] if not os.path.exists(out) else ["a failed run wrote --out"]
        if special in ("dev-zero", "dev-urandom", "chr-null", "dir", "loop", "missing", "empty"):
            return ["q7 ran on an input that is not a .npy file"]
        if special == "fifo":
            return []
        x_path = os.path.join(s, "in.npy")
        if op == "copy":
            return check_copy(x_path, out)
        # The 8-core relu copies through TCM as float whatever the dtype (an
        # op that does not check, not q7): judged on float32 inputs only.
        return check_relu(x_path, out, float_only=op == "relu8")

    # A valid tensor the op refuses fails in the op's own runtime check ("core N exited ...").
    return Case("npy", f"npy-{i:04d}", argv, setup=setup, check=check, names=("in.npy", "q7: error: core "), note=f"{op} {special or ''}".strip())


ELF_BASES = [
    ("relu.so", ("relu", "relu.so")),
    ("relu.packed.so", ("relu", "relu.packed.so")),
    ("relu.stripped.so", ("relu", "relu.stripped.so")),
    ("relu8_cpu3.so", ("relu8", "relu8_cpu3.so")),
    ("prog_cpu0.so", ("fixtures", "prog_cpu0.so")),
    ("kernels_gnu.so", ("fixtures", "kernels_gnu.so")),
    ("prog.o", ("fixtures", "prog.o")),
    ("relu.cpu3.ucpl", ("relu.cpu3.ucpl",)),
    ("hello.elf", ("bare", "hello.de212-O2.elf")),
]


def _elf_argv(rng, name, corpus):
    f = "{s}/" + name
    orig = corpus.path(*dict(ELF_BASES)[name])
    common = [
        ["layout", f],
        ["layout", "--json", f],
        ["disasm", f],
        ["disasm", "--no-symbols", f],
        ["inspect", "strings", f],
        ["inspect", "kinfo", f],
        ["inspect", "roster", f],
        ["inspect", "carve", f],
        ["inspect", "diff", orig, f],
        ["inspect", "rebase-diff", orig, f],
    ]
    if name == "relu.cpu3.ucpl":
        common += [["inspect", "ucpl", f]] * 4
    elif name == "hello.elf":
        common += [["run-bare", f, "--board", "de212", "--max-insns", "20000000", "--timeout", "10"]] * 4
        common += [["run-bare", f, "--board", "de212", "--engine", "interp", "--max-insns", "20000000", "--timeout", "10"]] * 2
    elif name.endswith(".so"):
        common += [["pack", f, "-o", "{s}/out.packed.so"], ["strip", f, "-o", "{s}/out.stripped.so"], ["prelink", f, "--core", "3", "-o", "{s}/out.ucpl"]]
        if name.startswith("relu"):
            run = ["run", f, "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--out", "{s}/out.npy", "--max-insns", "50000000", "--timeout", "10"]
            common += [run] * 6 + [run + ["--engine", "interp"]] * 2
    return ["{q7}"] + rng.choice(common)


def elf_cases(seed, count, corpus):
    cases = []
    for i in range(count):
        rng = rng_for(seed, "elf", i)
        name, parts = rng.choice(ELF_BASES)
        with open(corpus.path(*parts), "rb") as f:
            original = f.read()
        data = mutate.mutate_elf(rng, original)
        if name == "relu.cpu3.ucpl" and rng.random() < 0.7:
            data = mutate.mutate_bytes(rng, original, (0, 32))
        argv = _elf_argv(rng, name, corpus)
        # run-bare exits with the guest's status, as QEMU does: any but a panic's.
        bare = argv[1] == "run-bare"
        ok = tuple(c for c in range(256) if c != 101) if bare else (0, 1)

        def setup(s, name=name, data=data):
            write(os.path.join(s, name), data)

        def check(o, s, argv=argv):
            problems = []
            if o.status != 0:
                for out in ("out.packed.so", "out.stripped.so", "out.ucpl", "out.npy"):
                    if os.path.exists(os.path.join(s, out)):
                        problems.append(f"a failed run wrote {out}")
            return problems

        # An image q7 accepts and runs may fault: the error then names the core and pc.
        names = (name, "q7: error: core ") if argv[1] == "run" else (name,)
        cases.append(Case("elf", f"elf-{i:04d}", argv, setup=setup, check=check, names=names, ok=ok, error_required=not bare, note=f"{name} {argv[1]}"))
    return cases


def _objects_archive(corpus):
    members = []
    for n in ("prog.o", "util.o", "kernels_gnu.o"):
        with open(corpus.path("fixtures", n), "rb") as f:
            members.append((n, f.read()))
    members.append(("a_rather_long_member_name.o", members[0][1]))
    return mutate.ar_archive(members)


def archive_cases(seed, count, corpus):
    """ar archives for the CLI's archive readers (disasm, layout, inspect)."""
    bases = [("objects.a", _objects_archive(corpus))]
    for kind, path in sorted(corpus.archives.items()):
        with open(path, "rb") as f:
            bases.append((f"lib_{kind}.so", f.read()))
    cases = []
    for i in range(count):
        rng = rng_for(seed, "archive", i)
        name, original = rng.choice(bases)
        data = mutate.mutate_ar(rng, original) if rng.random() < 0.8 else mutate.mutate_bytes(rng, original)
        f = "{s}/" + name
        argv = ["{q7}"] + rng.choice(
            [["disasm", f], ["layout", f], ["inspect", "strings", f], ["inspect", "kinfo", f], ["inspect", "roster", f], ["inspect", "rebase-diff", f, f], ["inspect", "carve", f], ["disasm", "--json", f]]
        )

        def setup(s, name=name, data=data):
            write(os.path.join(s, name), data)

        cases.append(Case("archive", f"archive-{i:04d}", argv, setup=setup, names=(name,), note=f"{name} {argv[1]}"))
    return cases


def copy_into(corpus, s, *parts):
    return copy(corpus.path(*parts), os.path.join(s, parts[-1]))
