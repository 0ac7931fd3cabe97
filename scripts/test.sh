#!/usr/bin/env bash
# The whole test suite: bootstrap, formatting, lints, every test, fuzz builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo build: the tests, the binaries and the fuzz targets"
# The fuzz crates are workspace members outside default-members. One
# invocation with the tests resolves the features `cargo test` does, so each
# dependency is compiled once for both.
cargo build --workspace --bins --tests
echo "== cargo test"
cargo test --workspace --no-fail-fast
echo "== python: the q7 package (PyTorch front end) and its pytest suite"
# The extension in the dev profile, far cheaper than release. It does not
# reuse cargo test's build: q7-py alone resolves fewer dependency features
# (anyhow, memchr, rustix, serde_core, syn) than the workspace, so its crates
# compile again.
Q7_PY_PROFILE=dev scripts/python-env.sh
echo "== python: the bridge (q7._q7) under valgrind's memcheck"
scripts/bridge-memcheck.sh
# pytest exits 5 when it collected no tests: that is a failure here too.
status=0
.venv/bin/python -m pytest -q python/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest: no tests collected under python/tests" >&2
fi
exit "$status"
