"""Flag values (huge, negative, odd numbers and words), q7.toml projects
and source names that look like options or response files."""

import os
import shutil

import mutate
from common import make_node, rng_for, write
from harness import Case

SCHEMA_BITS = ["Tensor", "Tensor?", "Tensor[]", "int", "float", "Scalar", "bool", "str", "int[]", "Tensor(a!)", "*", "->", "(", ")", ",", "_0", "x", "-> Tensor", "-> ()", "-> (Tensor, Tensor)", "=", "None", "1", "\u00e9", " ", "[]", "?", "Tensor " * 9]


def _schema(rng):
    if rng.random() < 0.3:
        base = "relu_forward(Tensor _0) -> Tensor"
        return mutate.flip(rng, base.encode(), rng.randrange(1, 4)).decode("latin-1")
    return "relu_forward(" + "".join(rng.choice(SCHEMA_BITS) for _ in range(rng.randrange(0, 8))) + ")" + rng.choice([" -> Tensor", "", " -> ", " -> Tensor Tensor", " -> int"])


def _run_flags(rng, corpus):
    relu, misc = corpus.path("relu"), corpus.path("misc")
    x = corpus.path("x64.npy")
    n = mutate.rand_number
    kind = rng.randrange(14)
    if kind < 4:  # numbers into the schema's arguments
        flags = rng.sample(["--arg", "--scalar", "--double", "--int"], 3)
        argv = ["run", misc, "--fn", "scale_forward", "--in", corpus.path("x4.npy")]
        for _ in range(rng.choice([3, 3, 3, 2, 4])):
            argv += [rng.choice(flags), n(rng)]
        return argv, ()
    argv = ["run", rng.choice([relu, relu, corpus.path("relu8")]), "--fn", "relu_forward", "--in", x, "--out", "{s}/out.npy"]
    choices = [
        ["--max-insns", n(rng)],
        ["--timeout", n(rng)],
        ["--cores", n(rng)],
        ["--dst-shape", ",".join(n(rng) for _ in range(rng.randrange(1, 4)))],
        ["--dst-shape", rng.choice(["", ",", "64,", ",64", "1,1,1,1,1,1,1,1,64", "1," * 9 + "64", "0", "65", "18446744073709551615", "4294967296,4294967296", "64 ", "６４"])],
        ["--dst-dtype", rng.choice(["f32", "f16", "bf16", "i32", "i16", "i8", "u8", "f64", "i64", "bool", "complex64", "", "F32", "float32", "torch.float32", "f32 ", "u1", "\u00e9"])],
        ["--index", n(rng)],
        ["--seed", n(rng)],
        ["--engine", rng.choice(["jit", "interp", "", "JIT", "qemu"])],
        ["--tolerance", n(rng)],
        ["--fn", rng.choice(["", "relu", "relu_forward ", "_Z12relu_forwardRKN2at6TensorE", "-", "main", "x" * 5000, "relu_forward\x01"])],
        ["--stats"],
        ["--strict"],
        ["--no-checks"],
        ["--no-sdk-checks"],
        ["--json"],
        ["--cores", n(rng), "--seed", n(rng)],
    ]
    for _ in range(rng.randrange(1, 4)):
        argv += rng.choice(choices)
    return argv, ()


def _other_flags(rng, corpus):
    n = mutate.rand_number
    so = corpus.path("relu", "relu.so")
    packed = corpus.path("relu8", "relu8_cpu3.packed.so")
    bare = corpus.path("bare", "hello.de212-O2.elf")
    return rng.choice(
        [
            ["disasm", so, "--base", n(rng)],
            ["disasm", so, "--range", f"{n(rng)}..{n(rng)}"],
            ["disasm", so, "--range", rng.choice(["..", "0..", "..0x10", "0x10..0x0", "a..b", "0x0..0xffffffffffffffffff"])],
            ["disasm", so, "--section", rng.choice([".text", "", ".nonexistent", ".shstrtab", ".bss", "\u00e9"])],
            ["disasm", so, "--isa", rng.choice(["vision-q7", "", "x86", "lx"])],
            ["prelink", packed, "--core", n(rng), "-o", "{s}/out.ucpl"],
            ["prelink", packed, "--single", "--base", n(rng), "-o", "{s}/out.ucpl"],
            ["prelink", packed, "--core", "3", "-e", rng.choice(["", "lib_func", "nonexistent", "-x"]), "-o", "{s}/out.ucpl"],
            ["prelink", packed, "--all-cores", "-o", rng.choice(["{s}/out", "{s}/out-%d.ucpl", "{s}/out-{}.ucpl", "{s}/%s%n", "{s}/out-{core}.ucpl"])],
            ["inspect", "strings", so, "--min", n(rng)],
            ["inspect", "kinfo", corpus.path("fixtures", "kernels_gnu.so"), "--opcode", n(rng)],
            ["inspect", "diff", so, corpus.path("relu", "relu.stripped.so"), "--max-ranges", n(rng)],
            ["lsp", "--core", rng.choice([n(rng), "single", "8", "-1"]), "-o", "{s}/lsp"],
            ["pack", so, "-o", "{s}/out.packed.so", "-p", n(rng)],
            ["pack", so, "-o", "{s}/out.packed.so", "-e", rng.choice(["", "nonexistent", "relu_forward", "-x"])],
            ["strip", so, "-o", "{s}/out.stripped.so", "-p", n(rng)],
            ["run-bare", bare, "--board", "de212", "--max-insns", n(rng)],
            ["run-bare", bare, "--board", "de212", "--timeout", n(rng)],
            ["run-bare", bare, "--board", "de212", "--jit-hot", n(rng)],
            ["run-bare", bare, "--board", rng.choice(["", "de233_fpu", "sim", "DE212"])],
            ["profile", corpus.path("relu"), "--fn", "relu_forward", "--in", corpus.path("x64.npy"), "--top", n(rng)],
            ["build", "--name", "x", "--fn", "relu_forward", "--schema", _schema(rng), "--build-dir", "{s}/b", "--", os.path.join(corpus.repo, "examples/relu/relu.cpp")],
            ["build", "--name", "x", "--fn", "relu_forward", "--schema", _schema(rng), "--build-dir", "{s}/b", "--", os.path.join(corpus.repo, "examples/relu/relu.cpp")],
        ]
    )


def flag_cases(seed, count, corpus):
    cases = []
    for i in range(count):
        rng = rng_for(seed, "flags", i)
        argv, names = _run_flags(rng, corpus) if rng.random() < 0.6 else (_other_flags(rng, corpus), ())
        if argv[0] == "run":
            argv += ["--timeout", "20"] if "--timeout" not in argv else []
            argv += ["--max-insns", "300000000"] if "--max-insns" not in argv else []
        bare = argv[0] == "run-bare"  # exits with the guest's status (hello's is 3)
        ok = tuple(c for c in range(256) if c != 101) if bare else (0, 1, 2)
        cases.append(Case("flags", f"flags-{i:04d}", ["{q7}"] + argv, ok=ok, names=names, limit=60, error_required=not bare, note=" ".join(argv[:2])))
    return cases


TOML_VALUES = {
    "name": ['"librelu"', '""', '"-rf"', '"../../escaped"', '"a/b"', '"@x"', '"x' + "y" * 300 + '"', "5", "true", '"lib\\nrelu"', '"."', '".."', '"lib relu"'],
    "functions": ['["relu_forward"]', "[]", '["a", "b"]', '"relu_forward"', "[5]", '["relu_forward", "relu_forward"]', '["-x"]', '["relu_forward\\u0000"]'],
    "sources": ['["relu.cpp"]', "[]", '["nonexistent.cpp"]', '["/dev/null"]', '["../relu.cpp"]', '["relu.cpp", "relu.cpp"]', '["-relu.cpp"]', '["@relu.cpp"]', '["dir"]', '["fifo.cpp"]', '["chr.cpp"]', '["wrapper.cpp"]', '["link.cpp"]', '["loop.cpp"]'],
    "build_dir": ['"build"', '""', '"."', '"relu.cpp"', '"fifo.cpp"', '"chr.cpp"', '"dirlink"', '"deep/er/dir"', '"' + "d" * 300 + '"', '"/proc"', '"sock"', "7"],
    "multicore": ["true", "false", '"yes"', "1", "[]"],
    "shape_sources": ['["relu.cpp"]', '["nonexistent.cpp"]', "[]", '"x"'],
    "cflags": ['["-DX=1"]', '["-include", "nonexistent.h"]', "[5]", '"-O2"', '["-fsyntax-only"]'],
    "include_dirs": ['["."]', '["/nonexistent"]', "3"],
    "toolchain": ['"open"', '"xtensa-tools"', '"auto"', '""', '"gcc"'],
}
BASE_TOML = 'name = "librelu"\nfunctions = ["relu_forward"]\nschemas = ["relu_forward(Tensor _0) -> Tensor"]\nsources = ["relu.cpp"]\nbuild_dir = "build"\n'


def _toml(rng):
    lines = BASE_TOML.splitlines()
    kind = rng.randrange(10)
    if kind < 6:
        for _ in range(rng.randrange(1, 3)):
            key = rng.choice(list(TOML_VALUES))
            lines = [l for l in lines if not l.startswith(key + " ")] + [f"{key} = {rng.choice(TOML_VALUES[key])}"]
    elif kind == 6:
        lines = [l.replace('"relu_forward(Tensor _0) -> Tensor"', repr(_schema(rng)).replace("'", '"')) for l in lines]
    elif kind == 7:
        return mutate.flip(rng, "\n".join(lines).encode(), rng.randrange(1, 6)).decode("latin-1")
    elif kind == 8:
        rng.shuffle(lines)
        lines = lines[: rng.randrange(len(lines) + 1)] + rng.sample(lines, 1)
    else:
        lines.append(rng.choice(["[table]", "unknown = 1", "name = \"again\"", "\x00", "x = " + "[" * 10000, 'sources = ["relu.cpp"' + ', "relu.cpp"' * 2000 + "]"]))
    return "\n".join(lines) + "\n"


def _project(s, repo):
    os.makedirs(s, exist_ok=True)
    shutil.copy(os.path.join(repo, "examples/relu/relu.cpp"), os.path.join(s, "relu.cpp"))
    os.makedirs(os.path.join(s, "dir"), exist_ok=True)
    make_node(os.path.join(s, "fifo.cpp"), "fifo")
    if os.geteuid() == 0:
        make_node(os.path.join(s, "chr.cpp"), "chr-null")
    make_node(os.path.join(s, "sock"), "socket")
    os.symlink("relu.cpp", os.path.join(s, "link.cpp"))
    os.symlink("loop.cpp", os.path.join(s, "loop.cpp"))
    os.symlink("dir", os.path.join(s, "dirlink"))


def toml_cases(seed, count, corpus):
    cases = []
    for i in range(count):
        rng = rng_for(seed, "toml", i)
        text = _toml(rng)

        def setup(s, text=text):
            _project(s, corpus.repo)
            write(os.path.join(s, "q7.toml"), text.encode("latin-1", "replace"))

        def check(o, s):
            with open(os.path.join(s, "relu.cpp"), "rb") as f, open(os.path.join(corpus.repo, "examples/relu/relu.cpp"), "rb") as g:
                return [] if f.read() == g.read() else ["the build changed its source relu.cpp"]

        cases.append(Case("toml", f"toml-{i:04d}", ["{q7}", "build", "--toolchain", "open"], setup=setup, check=check, ok=(0, 1), limit=60))
    return cases


SOURCE_NAMES = [
    "-relu.cpp", "--relu.cpp", "-o.cpp", "-fplugin=x.cpp", "-Xclang.cpp", "@b.cpp", "@@b.cpp", "-", "relu .cpp", "re;lu.cpp",
    "$(touch PWNED).cpp", "`touch PWNED`.cpp", "relu\nx.cpp", "\u00fc.cpp", ".cpp", "-.cpp", "wrapper.cpp", "relu.so", "librelu.so",
    "x.c", "*.cpp", "[a].cpp", "-I..cpp", "'q'.cpp", '"dq".cpp', "a\\b.cpp", "%s%n.cpp", "x" * 240 + ".cpp", "-include.cpp", "-MF.cpp",
    "-v.cpp", "--help.cpp",
]
LIB_NAMES = ["-rf", "@x", "../x", "a/b", "a b", "", "--help", "lib$(touch PWNED)", "x" * 250, ".", "-o", "@b.cpp"]


def name_cases(seed, count, corpus):
    cases = []
    for i in range(count):
        rng = rng_for(seed, "names", i)
        mode = rng.choice(["dashdash", "dashdash", "plain", "toml", "dot-slash", "libname"])
        src = rng.choice(SOURCE_NAMES)
        lib = rng.choice(LIB_NAMES) if mode == "libname" else "librelu"
        build_dir = "." if src in ("wrapper.cpp", "librelu.so") and rng.random() < 0.7 else "out"

        def setup(s, src=src):
            os.makedirs(s, exist_ok=True)
            with open(os.path.join(corpus.repo, "examples/relu/relu.cpp"), "rb") as f:
                code = f.read()
            write(os.path.join(s, "relu.cpp"), code)
            if src not in ("-", "relu.cpp"):
                write(os.path.join(s, src.replace("/", "_")), code if src != "@b.cpp" else b"int helper(int x) { return x + 1; }\n")
            # What `@b.cpp` would apply as a response file.
            write(os.path.join(s, "b.cpp"), f"-include {s}/planted.h\n")
            write(os.path.join(s, "planted.h"), "#error PLANTED: a response file was applied\n")

        base = ["{q7}", "build", "--toolchain", "open", "--name", lib, "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", build_dir]
        if mode in ("dashdash", "libname"):
            argv = base + ["--", src if mode == "dashdash" else "relu.cpp"]
        elif mode == "plain":
            argv = base + [src]
        elif mode == "dot-slash":
            argv = base + ["./" + src]
        else:
            argv = ["{q7}", "build", "--toolchain", "open"]

        def setup_toml(s, src=src, setup=setup, build_dir=build_dir):
            setup(s)
            srcs = src.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            write(os.path.join(s, "q7.toml"), f'name = "librelu"\nfunctions = ["relu_forward"]\nschemas = ["relu_forward(Tensor _0) -> Tensor"]\nsources = ["{srcs}"]\nbuild_dir = "{build_dir}"\n')

        def check(o, s, src=src):
            problems = []
            if "PLANTED" in o.stderr:
                problems.append("a source named @… was read as a response file (PLANTED)")
            for dirpath, dirs, files in os.walk(s):
                if any("PWNED" == n or n.startswith("PWNED") for n in dirs + files):
                    problems.append("a name was run through a shell (PWNED exists)")
            with open(os.path.join(corpus.repo, "examples/relu/relu.cpp"), "rb") as f:
                code = f.read()
            path = os.path.join(s, src.replace("/", "_"))
            if src not in ("-", "@b.cpp") and os.path.isfile(path):
                with open(path, "rb") as f:
                    if f.read() != code:
                        problems.append(f"the build overwrote its source {src!r}")
            return problems

        cases.append(Case("names", f"names-{i:04d}", argv, setup=setup_toml if mode == "toml" else setup, check=check, ok=(0, 1, 2), names=(src.replace("\n", ""), lib, "q7.toml", "build-dir", src.split("\n")[0], "--name"), limit=60, note=f"{mode} {src!r} {lib!r}"))
    return cases
