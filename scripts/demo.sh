#!/usr/bin/env bash
# The main job end to end: bootstrap, build q7, build the relu example op for
# one fat core and for eight cores with `q7 build` (open toolchain, packed like
# xt-pkg-loadlib does), run both on a million-element tensor with `q7 run` and
# check the result against a host reference, bind the eight images to their
# windows with `q7 prelink`, and prove what was made with q7's own tools.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
cargo build --quiet --release -p q7
q7=$PWD/target/release/q7
out=$PWD/out/demo
rm -rf "$out"
mkdir -p "$out"

echo "== q7 build: examples/relu (single core) and examples/relu_multicore (8 cores)"
(cd examples/relu && "$q7" build --build-dir "$out/relu")
(cd examples/relu_multicore && "$q7" build --build-dir "$out/relu8")

echo; echo "== q7 run: relu on 1,048,576 floats, one core and eight, checked against the host"
python3 scripts/npy_tool.py make "$out/x.npy" 1048576
"$q7" run "$out/relu" --fn relu_forward --in "$out/x.npy" --out "$out/y1.npy" --stats
python3 scripts/npy_tool.py check-relu "$out/x.npy" "$out/y1.npy"
"$q7" run "$out/relu8" --fn relu_forward --in "$out/x.npy" --out "$out/y8.npy" --stats
python3 scripts/npy_tool.py check-relu "$out/x.npy" "$out/y8.npy"

echo; echo "== q7 debug: core 5 stopped at one element, its locals, one line back (docs/DEBUGGING.md)"
(cd examples/relu_multicore && "$q7" build --build-dir "$out/relu8g" --cflag -g --cflag -O0 >/dev/null)
printf 'break relu.cpp:33 core 5 if i == 4096 && j == 7\ncontinue\nprint tcm_buffer[j]\nprint x[partition * cpu_id + i + j]\nreverse-step\nprint j\n' >"$out/debug.txt"
"$q7" debug "$out/relu8g" --fn relu_forward --in "$out/x.npy" -x "$out/debug.txt"

echo; echo "== q7 layout: the eight per-core images tile the 16 MiB aperture"
"$q7" layout "$out"/relu8/librelu_cpu{0..7}.so | sed -n '/^across/,$p'

echo; echo "== q7 inspect rebase-diff: one program re-linked at eight bases"
"$q7" inspect rebase-diff "$out"/relu8/librelu_cpu{0..7}.stripped.so | tail -4

echo; echo "== q7 prelink: UCPL images bound to each core window"
"$q7" prelink "$out/relu8/librelu_cpu0.packed.so" --all-cores -o "$out/ucpl"
"$q7" inspect ucpl "$out/ucpl/librelu.cpu5.ucpl" | head -12

echo; echo "== q7 disasm: the op's entry"
"$q7" disasm "$out/relu/librelu.so" | grep -A8 -m1 'relu_forward[A-Za-z0-9_]*>:' | head -9

echo; echo "== PyTorch: examples/torch_mlp, the Neuron tutorial's project, one training step through q7"
scripts/python-env.sh
# build.py and train.py run unmodified: q7.neuronx makes torch_neuronx's
# custom_op q7's. build.py is verbose; keep its q7 lines.
(cd examples/torch_mlp && ../../.venv/bin/python -m q7.neuronx build.py | grep -E '^q7( build)?:')
(cd examples/torch_mlp && ../../.venv/bin/python -m q7.neuronx train.py 1)
