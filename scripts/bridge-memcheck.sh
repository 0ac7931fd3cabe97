#!/usr/bin/env bash
# The Python bridge (the extension q7._q7) under valgrind's memcheck:
# python/tests/bridge_exercise.py calls every entry point (a build, runs,
# malformed arguments, a finding, a profile) over the uninstrumented
# extension, and any invalid read or write, use of freed memory or
# uninitialised value fails the run. PYTHONMALLOC=malloc makes every Python
# object its own malloc block, whose bounds memcheck knows: under pymalloc a
# read past a small `bytes` lands in the same pool and goes unseen. No
# suppressions: this interpreter and the extension report nothing today.
# Needs .venv (scripts/python-env.sh) and valgrind (scripts/bootstrap.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=target/bridge-memcheck
rm -rf "$build_dir"
mkdir -p target
# The SDK archive cache the pytest suite uses (python/tests/conftest.py). A
# plain run first fills it at native speed; the checked run then builds
# against it (the compilers it starts run outside valgrind either way).
export Q7_CACHE_DIR="${Q7_CACHE_DIR:-$PWD/target/q7-py-cache}"
.venv/bin/python python/tests/bridge_exercise.py "$build_dir/plain"
PYTHONMALLOC=malloc valgrind --tool=memcheck --error-exitcode=1 --leak-check=no --num-callers=40 \
  .venv/bin/python python/tests/bridge_exercise.py "$build_dir/checked"
