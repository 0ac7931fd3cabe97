#!/usr/bin/env bash
# Opt-in, not in CI (it downloads torch, about 3 GB with its CUDA libraries):
# q7 in an op author's own environment. Makes a plain virtual environment
# (no system packages) with the newest torch 2.x from the package index,
# installs q7 into it with `pip install .` (the package and the `q7`
# command), prepares the device SDK, then runs q7's Python suite and the
# MLP example (build.py, train.py) there, and checks the `q7` command.
#
#   scripts/torch-compat.sh                      venv in target/torch-compat-venv
#   TORCH_COMPAT_VENV=DIR scripts/torch-compat.sh    elsewhere (kept, reused)
#   TORCH_COMPAT_PYTHON=python3.12 scripts/torch-compat.sh
#   TORCH_COMPAT_TORCH='torch==2.15.0' scripts/torch-compat.sh
#
# torch comes from PyTorch's CPU-only index when pip can reach it (a few
# hundred MB), else from the default index. Needs cargo and the packages of
# scripts/bootstrap.sh (clang-22, ...). Ends with "torch-compat: passed"
# and the versions, or fails at the first step that does.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

VENV=${TORCH_COMPAT_VENV:-$REPO/target/torch-compat-venv}
PYTHON=${TORCH_COMPAT_PYTHON:-/usr/bin/python3}
TORCH=${TORCH_COMPAT_TORCH:-torch>=2,<3}
CPU_INDEX=https://download.pytorch.org/whl/cpu
say() { echo "torch-compat: $*"; }

if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV with $PYTHON (no system site packages)"
  "$PYTHON" -m venv "$VENV"
fi
PY=$VENV/bin/python
"$PY" -m pip install --quiet --upgrade pip

if ! "$PY" -c 'import torch, sys; sys.exit(not torch.__version__.startswith("2."))' 2>/dev/null; then
  if "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/torch/', timeout=10)" "$CPU_INDEX" 2>/dev/null; then
    say "pip install '$TORCH' from $CPU_INDEX"
    "$PY" -m pip install --quiet --no-cache-dir --index-url "$CPU_INDEX" --extra-index-url https://pypi.org/simple "$TORCH"
  else
    say "$CPU_INDEX is unreachable: pip install '$TORCH' from the default index (~3 GB)"
    "$PY" -m pip install --quiet --no-cache-dir "$TORCH"
  fi
fi
# The suite's tools: pytest; maturin (a test builds a wheel); ninja and
# numpy for the libtorch shape builds (torch.utils.cpp_extension) and torch.
"$PY" -m pip install --quiet pytest maturin ninja numpy

say "pip install . (q7 and its q7 command, built with maturin)"
"$PY" -m pip install --quiet --force-reinstall --no-deps "$REPO"
"$PY" -m q7.prepare
"$VENV/bin/q7" --version

say "the Python suite"
# In the suite's own cache (target/q7-py-cache): libtorch shape libraries
# are kept per torch version there.
"$PY" -m pytest -q -p no:cacheprovider "$REPO/python/tests"

say "the MLP example"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$REPO"/examples/torch_mlp/*.py "$REPO"/examples/torch_mlp/*.cpp "$work"
(cd "$work" && "$PY" -m q7.neuronx build.py >/dev/null && "$PY" -m q7.neuronx train.py)

say "passed: $("$PY" -c 'import sys, torch; print(f"torch {torch.__version__} (C++ ABI {int(torch._C._GLIBCXX_USE_CXX11_ABI)}), Python {sys.version.split()[0]}")') in $VENV"
