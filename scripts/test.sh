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
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# A build made once: incremental state is only written, never read.
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

# maturin resolves q7-py's dependency features alone; crates/q7-py/Cargo.toml
# makes them the workspace's, so it reuses the build below. Each package's
# features (host and target together) in both resolutions:
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
    sys.exit("test.sh: add them to crates/q7-py/Cargo.toml, or maturin compiles the workspace again")
PY

# A crate compiled earlier without clippy (a plain `cargo build`) is fresh to
# cargo and would go unlinted: such artefacts are removed first.
unlinted=$(find "$target/debug" -maxdepth 3 -name '*.d' -print0 2>/dev/null |
  xargs -0r grep -l -e " $PWD/crates/" -e " $PWD/fuzz/" | xargs -r grep -L "^# env-dep:CLIPPY_ARGS=$CLIPPY_ARGS" || true)
if [ -n "$unlinted" ]; then
  echo "== cargo clean --workspace (crates built without clippy: $(echo "$unlinted" | wc -l) targets)"
  cargo clean -q --workspace
fi

echo "== cargo build: every target (tests, binaries, examples, benchmarks, fuzz targets, q7-py), linted"
cargo build --workspace --all-targets

echo "== python: the q7 package into .venv (maturin develop, dev profile: built above)"
Q7_PY_PROFILE=dev scripts/python-env.sh

# The Python suite runs beside cargo test, which leaves a core idle for part
# of its run; its output follows cargo test's. (pytest's wheel test waits for
# cargo test to release the target directory.) A command started with `&`
# ignores SIGINT; `env --default-signal=INT` undoes that, for the tests that
# stop an op with Ctrl-C.
echo "== cargo test, and pytest beside it"
python_log=$target/pytest.log
env --default-signal=INT .venv/bin/python -m pytest -q python/tests >"$python_log" 2>&1 &
python_pid=$!
rust_status=0
cargo test --workspace --no-fail-fast || rust_status=$?
python_status=0
wait "$python_pid" || python_status=$?
echo "== pytest (run beside cargo test)"
cat "$python_log"
# pytest exits 5 when it collected no tests: that is a failure here too.
if [ "$python_status" -eq 5 ]; then
  echo "pytest: no tests collected under python/tests" >&2
fi
if [ "$rust_status" -ne 0 ] || [ "$python_status" -ne 0 ]; then
  echo "test.sh: cargo test exit $rust_status, pytest exit $python_status" >&2
  exit 1
fi
