#!/usr/bin/env bash
# Makes .venv: a virtual environment of Debian's /usr/bin/python3 (the
# interpreter that sees Debian's torch; another `python3` on PATH may not),
# with maturin and pytest from pip, and the q7 package built into it from
# this checkout (`maturin develop --release`), then q7's device SDK built
# into the cache (`python -m q7.prepare`, once per q7 version: the first
# custom_op.load does not pay for it). Idempotent.
#
# Q7_PY_PROFILE=dev builds the extension in cargo's dev profile instead:
# scripts/test.sh does: a release build of the simulator costs minutes and
# the suite's ops are small. `python-env.sh --venv` only makes .venv (with
# maturin and pytest) and builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

python=/usr/bin/python3
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "python-env: $python cannot import torch; run scripts/bootstrap.sh (python3-torch)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "python-env: creating .venv with $python --system-site-packages"
  "$python" -m venv --system-site-packages .venv
fi
if ! .venv/bin/python -c 'import maturin, pytest' 2>/dev/null && ! { [ -x .venv/bin/maturin ] && .venv/bin/python -c 'import pytest' 2>/dev/null; }; then
  echo "python-env: pip install maturin pytest"
  .venv/bin/pip install --quiet maturin pytest
fi
if [ "${1:-}" = --venv ]; then
  exit 0
fi
if [ "${Q7_PY_PROFILE:-release}" = dev ]; then
  echo "python-env: maturin develop (dev profile: the q7 package into .venv, for the test suite)"
  .venv/bin/maturin develop --quiet
else
  echo "python-env: maturin develop --release (the q7 package into .venv)"
  .venv/bin/maturin develop --release --quiet
fi
.venv/bin/python -m q7.prepare
.venv/bin/python -c 'import q7, torch; print(f"python-env: q7 ready in .venv (torch {torch.__version__})")'
