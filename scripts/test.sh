#!/usr/bin/env bash
# The whole test suite: bootstrap, formatting, lints, every test, fuzz builds.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}

scripts/bootstrap.sh
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== python: .venv with maturin and pytest"
scripts/python-env.sh --venv

# Clippy is the compiler of the workspace's own crates (what `cargo clippy`
# runs, with its way of passing flags), so one build both lints and compiles
# them: `cargo clippy` would first check every dependency a second time.
# (Cargo keeps these builds apart from plain ones: the wrapper is part of
# each crate's hash, so a crate built without lints is never reused here.)
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# Incremental state costs a fifth more compile time and is rarely read here.
export CARGO_INCREMENTAL=0
# The fuzz targets are built (not run) here: they link clang's libFuzzer
# (libclang-rt-22-dev) instead of compiling libfuzzer-sys's copy.
export CUSTOM_LIBFUZZER_PATH=/usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a
# q7-py (the Python extension) is built below with the environment
# `maturin develop` gives cargo, so maturin finds it built.
py=$PWD/.venv/bin/python
export PYO3_PYTHON=$py PYTHON_SYS_EXECUTABLE=$py PYO3_BUILD_EXTENSION_MODULE=1
PYO3_ENVIRONMENT_SIGNATURE=$("$py" -c 'import platform, sys; v = sys.version_info
print(f"{sys.implementation.name}-{v.major}.{v.minor}-{platform.architecture()[0]}")')
export PYO3_ENVIRONMENT_SIGNATURE

# maturin resolves q7-py's dependency features alone; they must be the
# workspace's (q7-py depends on the CLI, which brings the rest), or maturin
# compiles the workspace again. Each package's features (host and target
# together) in both resolutions:
features() { cargo tree -q -e "$1" --prefix none -f '{p}|{f}' "${@:2}"; }
python3 - <(features normal,build -p q7-py) <(features normal,build,dev --workspace) <<'PY'
import sys
def union(path):
    seen = {}
    for line in open(path):
        package, _, features = line.rstrip("\n").removesuffix(" (*)").partition("|")
        if not package:
            continue
        name, version = package.split()[:2]
        seen.setdefault(f"{name} {version}", set()).update(f for f in features.split(",") if f)
    return seen
alone, workspace = union(sys.argv[1]), union(sys.argv[2])
missing = {p: sorted(workspace[p] - f) for p, f in alone.items() if workspace.get(p, f) - f}
for package, features in sorted(missing.items()):
    print(f"test.sh: q7-py alone resolves {package} without {', '.join(features)}", file=sys.stderr)
if missing:
    sys.exit("test.sh: give q7-py (crates/q7-py/Cargo.toml) these features, or maturin compiles the workspace again")
PY

# Libraries and binaries first (q7-py among them): the Python suite needs no
# more, so it runs while the test targets build and the Rust tests run (each
# leaves a core idle for part of its run).
echo "== cargo build: the libraries and binaries (q7-py and the fuzz targets among them), linted"
cargo build --workspace --lib --bins
# The Python suite's cache of built SDKs (python/tests/conftest.py; its
# golden files name it): python-env.sh prepares the SDK there, and the
# memcheck and pytest find it built.
py_cache=$PWD/target/q7-py-cache
echo "== python: the q7 package into .venv (maturin develop, dev profile: built above)"
Q7_CACHE_DIR=$py_cache Q7_PY_PROFILE=dev scripts/python-env.sh

# pytest's output follows the Rust tests'. A command started with `&`
# ignores SIGINT; `env --default-signal=INT` undoes that, for the tests that
# stop an op with Ctrl-C.
echo "== pytest starts (its output comes after the Rust tests')"
python_log=$target/pytest.log
env --default-signal=INT .venv/bin/python -m pytest -q python/tests >"$python_log" 2>&1 &
python_pid=$!
trap 'kill "$python_pid" 2>/dev/null || true' EXIT
echo "== cargo build: every other target (tests, examples, benchmarks), linted"
cargo build --workspace --all-targets
# cargo test would hold the target directory as long as the tests run (and
# pytest's wheel build would wait for it): cargo lists the test executables
# and they run here, each from its package's directory as cargo runs them.
echo "== cargo test --no-run"
cargo test --workspace --no-run --message-format=json-render-diagnostics >"$target/test-executables.json"
failed=()
while IFS=$'\t' read -r name dir exe; do
  echo "     Running $name (${exe#"$PWD/"})"
  (cd "$dir" && "$exe" </dev/null) || failed+=("$name")
done < <(python3 -c '
import json, os, sys
units = set()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        units.add((m["target"]["name"], os.path.dirname(m["manifest_path"]), m["executable"]))
for unit in sorted(units):
    print(*unit, sep="\t")' <"$target/test-executables.json")
# Doc-tests of the libraries that have them (`doctest = false` on the others).
read -ra doc_packages < <(cargo metadata -q --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if any("lib" in t["kind"] and t["doctest"] for t in p["targets"]):
        print("-p", p["name"], end=" ")') || true
if [ ${#doc_packages[@]} -ne 0 ]; then
  echo "== cargo test --doc ${doc_packages[*]}"
  cargo test --doc "${doc_packages[@]}" || failed+=(doctests)
fi
echo "== python: the bridge (q7._q7) under valgrind's memcheck"
Q7_CACHE_DIR=$py_cache scripts/bridge-memcheck.sh || failed+=(bridge-memcheck)
python_status=0
wait "$python_pid" || python_status=$?
trap - EXIT
echo "== pytest (run beside the build and the Rust tests)"
cat "$python_log"
# pytest exits 5 when it collected no tests: that is a failure here too.
if [ "$python_status" -eq 5 ]; then
  echo "pytest: no tests collected under python/tests" >&2
fi
if [ ${#failed[@]} -ne 0 ] || [ "$python_status" -ne 0 ]; then
  echo "test.sh: failed: ${failed[*]:-none besides pytest}; pytest exit $python_status" >&2
  exit 1
fi
