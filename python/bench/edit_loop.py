"""The op author's edit-run loop, timed as a new user meets it (issue 31).

    .venv/bin/python python/bench/edit_loop.py

On a scratch copy of examples/torch_mlp with a fresh cache ($Q7_CACHE_DIR),
each step a new process that imports torch, then times `import q7` plus
`custom_op.load(...)` (what build.py calls) and nothing else:

  cold      the first load, nothing of this op cached (the device SDK
            prepared first, untimed, as installing q7 does, when this q7 can)
  warm      the same load again
  shape     after a whitespace change in shape.cpp
  -g        after switching on extra_cflags=['-g']

Each line: `edit-run loop: STEP: SECONDS s (goal <= GOAL s)`; scripts/bench.sh
reads them. One more line times the device SDK's one-off build (the part
of a first load that preparing the package moves out of it).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Seconds a step may take (issue 31's Done-when).
GOALS = {"cold": 5.0, "warm": 0.3, "shape": 2.0, "-g": 5.0}
LABELS = {
    "cold": "cold custom_op.load of the MLP example, empty op cache",
    "warm": "warm custom_op.load (beyond importing torch)",
    "shape": "load after a whitespace change in shape.cpp",
    "-g": "load after switching on extra_cflags=['-g']",
}

# The child: import torch untimed, then q7 and the load, timed.
CHILD = """
import json, sys, time
import torch
started = time.perf_counter()
from q7 import custom_op
custom_op.load(name="relu", compute_srcs=["relu.cpp"], shape_srcs=["shape.cpp"],
               extra_cflags=json.loads(sys.argv[1]), build_directory=".", verbose=False)
print(json.dumps(time.perf_counter() - started))
"""


def timed_load(project, env, cflags=()):
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(list(cflags))],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"edit_loop.py: the load failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare(env):
    """Builds the device SDK into the fresh cache when this q7 can (untimed
    for the cold row: installing q7 does it); returns its seconds or None."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "q7.prepare"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    if done.returncode != 0:
        return None
    return time.perf_counter() - started


def seed_from_default_cache(env):
    """A q7 without `q7.prepare`: copies the device SDKs the default cache
    holds into the fresh one, so that the cold row measures the same thing."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    default = os.path.join(home, "q7")
    copied = []
    for entry in sorted(os.listdir(default)) if os.path.isdir(default) else []:
        if entry.startswith(("sdk-", "clang-resource-")):
            source = os.path.join(default, entry)
            target = os.path.join(env["Q7_CACHE_DIR"], entry)
            (shutil.copytree if os.path.isdir(source) else shutil.copy)(source, target)
            copied.append(entry)
    return copied


def report(step, seconds):
    goal = GOALS[step]
    verdict = "met" if seconds <= goal else "not met"
    print(f"edit-run loop: {LABELS[step]}: {seconds:.2f} s (goal <= {goal:g} s, {verdict})", flush=True)


def main():
    scratch = tempfile.mkdtemp(prefix="q7-edit-loop-")
    try:
        project = os.path.join(scratch, "torch_mlp")
        shutil.copytree(os.path.join(REPO, "examples", "torch_mlp"), project)
        env = dict(os.environ, Q7_CACHE_DIR=os.path.join(scratch, "cache"))
        os.makedirs(env["Q7_CACHE_DIR"])
        sdk = prepare(env)
        if sdk is not None:
            print(f"edit-run loop: preparing the device SDK (once per q7 version, at install): {sdk:.2f} s", flush=True)
        else:
            copied = seed_from_default_cache(env)
            print(f"edit-run loop: no q7.prepare in this q7; SDK copied from the default cache: {copied}", flush=True)
        report("cold", timed_load(project, env))
        report("warm", timed_load(project, env))
        with open(os.path.join(project, "shape.cpp"), "a") as f:
            f.write("\n")
        report("shape", timed_load(project, env))
        report("-g", timed_load(project, env, ["-g"]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
