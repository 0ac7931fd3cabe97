#!/usr/bin/env bash
# The whole test suite: bootstrap, formatting, lints, every test, fuzz builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== fuzz targets build"
for manifest in fuzz/Cargo.toml crates/*/fuzz/Cargo.toml; do
  [ -f "$manifest" ] || continue
  cargo build --quiet --manifest-path "$manifest"
  echo "fuzz: built $(dirname "$manifest")"
done
echo "== cargo test"
cargo test --workspace --no-fail-fast
