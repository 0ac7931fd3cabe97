"""Mutated inputs of q7's other readers: LLVM IR for legalize-ir, Tensilica
core descriptions, roster manifests (JSON), host libraries and flat
containers for carve, raw blobs for disasm, and multicore build directories
with one damaged image."""

import os
import shutil

import mutate
from common import rng_for, write
from harness import Case

TOKENS = [b"0", b"-1", b"4294967296", b"18446744073709551616", b"i32", b"i64", b"float", b"ptr", b"%0", b"@x", b"{", b"}", b"(", b")", b"!0", b"0x7FF8000000000000", b"select", b"undef", b"\x00", b"..."]


def _mutate_text(rng, data):
    """Line-level damage (drop, repeat, swap) or a token put in a random place."""
    lines = data.split(b"\n")
    kind = rng.randrange(5)
    if kind == 0 and lines:
        del lines[rng.randrange(len(lines))]
    elif kind == 1 and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 2 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3 and lines:
        i = rng.randrange(len(lines))
        line = lines[i]
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + rng.choice(TOKENS) + line[at + rng.randrange(0, 4) :]
    else:
        return mutate.mutate_bytes(rng, data)
    return b"\n".join(lines)


def text_cases(seed, count, corpus):
    repo = corpus.repo
    cc = os.path.join(repo, "crates/q7-analyst/tests/data/core_config")
    host = os.path.join(repo, "fixtures/host")
    # (file name, source, argv with {f} for the mutated file, text?)
    bases = [
        ("relu.ll", corpus.path("relu", "relu.ll"), ["legalize-ir", "{f}", "-o", "{s}/out.ll"], True),
        ("wrapper.ll", corpus.path("relu", "wrapper.ll"), ["legalize-ir", "{f}", "-o", "{s}/out.ll"], True),
        ("ncore2gp-params", os.path.join(cc, "ncore2gp-params"), ["inspect", "core-config", "{f}"], True),
        ("core-isa.h", os.path.join(cc, "core-isa.h"), ["inspect", "core-config", os.path.join(cc, "ncore2gp-params"), "{f}", "--json"], True),
        ("manifest.json", os.path.join(host, "src/sunda_manifest.json"), ["inspect", "roster", os.path.join(host, "bin/sunda.elf"), "--manifest", "{f}"], True),
        ("libhost.so", os.path.join(host, "bin/libq7ucode_host.so"), ["inspect", "carve", "{f}", "--out", "{s}/carved"], False),
        ("ucode_flat.bin", os.path.join(host, "bin/ucode_flat.bin"), ["inspect", "carve", "{f}", "--json"], False),
        ("sunda.elf", os.path.join(host, "bin/sunda.elf"), ["inspect", "kinfo", "{f}", "--opcode", "67"], False),
        ("blob.bin", corpus.path("relu", "relu.stripped.so"), ["disasm", "{f}", "--base", "0x84000000"], False),
    ]
    cases = []
    for i in range(count):
        rng = rng_for(seed, "text", i)
        name, src, argv, is_text = rng.choice(bases)
        with open(src, "rb") as f:
            original = f.read()
        data = _mutate_text(rng, original) if is_text and rng.random() < 0.7 else (mutate.mutate_elf(rng, original) if original[:4] == b"\x7fELF" else mutate.mutate_bytes(rng, original))
        if name == "blob.bin":
            data = data[52:]  # no ELF header: raw bytes

        def setup(s, name=name, data=data):
            write(os.path.join(s, name), data)

        full = ["{q7}"] + [a.replace("{f}", "{s}/" + name) for a in argv]
        cases.append(Case("text", f"text-{i:04d}", full, setup=setup, names=(name,), ok=(0, 1), note=f"{name} {argv[0]} {argv[1] if argv[0] == 'inspect' else ''}".strip()))
    cases += _multicore_dir_cases(seed, max(1, count // 4), corpus)
    return cases


def _multicore_dir_cases(seed, count, corpus):
    """A copy of the 8-core relu build with one per-core image damaged, run as a directory."""
    src = corpus.path("relu8")
    files = sorted(n for n in os.listdir(src) if n.startswith("relu8_cpu") and n.endswith((".so",)))
    cases = []
    for i in range(count):
        rng = rng_for(seed, "text-dir", i)
        victim = rng.choice(files)
        with open(os.path.join(src, victim), "rb") as f:
            data = mutate.mutate_elf(rng, f.read())
        drop = rng.random() < 0.15

        def setup(s, victim=victim, data=data, drop=drop):
            d = os.path.join(s, "b")
            os.makedirs(d)
            for n in files:
                shutil.copy(os.path.join(src, n), d)
            if drop:
                os.unlink(os.path.join(d, victim))
            else:
                write(os.path.join(d, victim), data)

        argv = ["{q7}", "run", "{s}/b", "--fn", "relu_forward", "--in", corpus.path("x800.npy"), "--out", "{s}/out.npy", "--max-insns", "100000000", "--timeout", "15"]
        cases.append(Case("text", f"text-dir-{i:04d}", argv, setup=setup, names=(victim, "b", "relu8", "q7: error: core "), ok=(0, 1), note=f"relu8 dir, {victim} {'removed' if drop else 'damaged'}"))
    return cases
