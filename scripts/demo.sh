#!/usr/bin/env bash
# The main job end to end: bootstrap, build q7, generate the LSPs, build the
# fixture images with the open toolchain, and report their layout.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
cargo build --quiet -p q7
q7=target/debug/q7
out=out/demo
rm -rf "$out"
"$q7" lsp --out "$out/lsp"
Q7=$q7 fixtures/build.sh "$out/images"
echo
"$q7" layout "$out/images/prog_cpu3.so"
echo
"$q7" layout "$out"/images/prog_cpu{0..7}.so | sed -n '/^across/,$p'
