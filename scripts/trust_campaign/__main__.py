"""The trust campaign (issue #26), against the release q7 and the Python
package: `scripts/trust-campaign.sh` runs this with its paths.

Deterministic: every case is made from (seed, category, index) alone, so
`--only NAME` rebuilds and re-runs one case exactly."""

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import shutil
import statistics
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_flags  # noqa: E402
import cases_inputs  # noqa: E402
import cases_outputs  # noqa: E402
import cases_signals  # noqa: E402
import cases_text  # noqa: E402
import py_cases  # noqa: E402
import repro  # noqa: E402
from corpus import Corpus  # noqa: E402
from harness import Harness, keep_failure, remove_tree  # noqa: E402

# Runs per category at --scale 1 (outpaths, python and repro are fixed lists).
COUNTS = {"npy": 1500, "elf": 1500, "archive": 400, "text": 800, "flags": 1500, "toml": 120, "names": 60, "signals": 300, "native": 30, "py-archive": 200}
MIN_FREE = 1 << 30
ORDER = ["repro", "npy", "elf", "archive", "text", "flags", "outpaths", "pipes", "toml", "names", "signals", "native", "python", "py-archive"]


def main():
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ap = argparse.ArgumentParser(prog="trust-campaign", description=__doc__)
    ap.add_argument("--q7", default=os.path.join(repo, "target/release/q7"))
    ap.add_argument("--python", default=os.path.join(repo, ".venv/bin/python"))
    ap.add_argument("--work", default=os.path.join(repo, "target/trust-campaign"))
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the per-category counts")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma-separated case names (from failures.txt) or categories")
    ap.add_argument("--keep", action="store_true", help="keep every scratch directory")
    ap.add_argument("--no-python", action="store_true", help="skip the Python package (and the --native builds)")
    args = ap.parse_args()

    started = time.monotonic()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    free = shutil.disk_usage(work).free
    if free < MIN_FREE:
        # A full disk makes q7 fail in ways the campaign would blame on q7.
        sys.exit(f"trust-campaign: {free >> 20} MiB free under {work}; the campaign needs {MIN_FREE >> 30} GiB")
    runs_dir = os.path.join(work, "runs")
    failures_dir = os.path.join(work, "failures")
    for d in (runs_dir, failures_dir):
        if os.path.exists(d):
            remove_tree(d)
        os.makedirs(d)
    env = {k: v for k, v in os.environ.items() if k not in ("RUST_BACKTRACE", "RUST_LOG")}
    env.update({"CI": "true", "Q7_CACHE_DIR": os.path.join(work, "cache"), "PYTHONDONTWRITEBYTECODE": "1"})
    log = lambda m: print(f"[{time.monotonic() - started:6.0f} s] {m}", flush=True)  # noqa: E731
    corpus = Corpus(repo, work, os.path.abspath(args.q7), os.path.abspath(args.python), env, log)
    corpus.build(lite=args.no_python)
    log("setup done")

    cases = make_cases(args, corpus)
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c.name in wanted or c.category in wanted]
    harness = Harness(corpus.q7, work, corpus.watched(), env)
    results = run_all(harness, cases, corpus, runs_dir, failures_dir, args, log)
    report(results, cases, work, args, time.monotonic() - started)


def make_cases(args, corpus):
    n = {k: max(1, round(v * args.scale)) for k, v in COUNTS.items()}
    seed = args.seed
    python = [] if args.no_python else py_cases.python_cases(corpus, corpus.python)
    reference = _reference_build(corpus)
    by_category = {
        "repro": repro.repro_cases(corpus, python),
        "npy": cases_inputs.npy_cases(seed, n["npy"], corpus),
        "elf": cases_inputs.elf_cases(seed, n["elf"], corpus),
        "archive": cases_inputs.archive_cases(seed, n["archive"], corpus),
        "text": cases_text.text_cases(seed, n["text"], corpus),
        "flags": cases_flags.flag_cases(seed, n["flags"], corpus),
        "outpaths": cases_outputs.outpath_cases(seed, corpus) + cases_outputs.inplace_cases(corpus) + cases_outputs.concurrent_cases(corpus, reference),
        "pipes": cases_signals.pipe_cases(corpus),
        "toml": cases_flags.toml_cases(seed, n["toml"], corpus),
        "names": cases_flags.name_cases(seed, n["names"], corpus),
        "signals": cases_signals.signal_cases(seed, n["signals"], corpus, reference),
        "native": [] if args.no_python else cases_signals.native_cases(seed, n["native"], corpus),
        "python": python,
        "py-archive": [] if args.no_python else py_cases.archive_load_cases(seed, n["py-archive"], corpus, corpus.python),
    }
    if args.no_python:
        by_category["repro"] = [c for c in by_category["repro"] if "native" not in c.name and "asan" not in c.name]
    return [c for cat in ORDER for c in by_category[cat]]


def _reference_build(corpus):
    """librelu.packed.so as a clean build makes it (the signals' rebuilds must match)."""
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(dir=corpus.work) as d:
        shutil.copy(os.path.join(corpus.repo, "examples/relu/relu.cpp"), d)
        args = [corpus.q7, "build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir", "b", "--", "relu.cpp"]
        subprocess.run(args, cwd=d, env=corpus.env, check=True, capture_output=True)
        with open(os.path.join(d, "b", "librelu.packed.so"), "rb") as f:
            return f.read()


def run_all(harness, cases, corpus, runs_dir, failures_dir, args, log):
    """Runs the cases category by category (appending to `cases` the batches it resumes)."""
    results = []
    running = set()
    lock = threading.Lock()
    done_count = [0]

    def one(case):
        scratch = os.path.join(runs_dir, case.name)
        with lock:
            running.add(case.name)
            alongside = sorted(running - {case.name})
        try:
            result = harness.run(case, scratch)
        except Exception as e:  # a harness error is reported as the case's
            from harness import Result

            result = Result(case.category, case.name, harness.command_line(case, scratch), None, 0.0, None, False, "", None, [f"harness error: {type(e).__name__}: {e}"], "", "")
        with lock:
            running.discard(case.name)
            done_count[0] += 1
            if done_count[0] % 250 == 0:
                log(f"{done_count[0]} of {len(cases)} cases run")
        if any(p.startswith("outside the scratch") for p in result.problems) and alongside:
            result.problems.append(f"(ran alongside {', '.join(alongside)})")
        if not result.clean:
            keep_failure(scratch, os.path.join(failures_dir, case.name))
        if not args.keep:
            remove_tree(scratch)
        return result

    # Categories in order; a category's cases in parallel.
    for category in ORDER:
        batch = [c for c in cases if c.category == category]
        if not batch:
            continue
        t0 = time.monotonic()
        jobs = 1 if category in ("repro",) else args.jobs
        count = len(batch)
        while batch:
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                got = list(pool.map(one, batch))
            results += got
            # A batch of archives whose interpreter died goes on in a new one.
            batch = [r for r in (py_cases.resume(c, corpus, corpus.python) for c in batch if getattr(c, "never", None)) if r]
            for c in batch:
                cases.append(c)
            count += len(batch)
        log(f"{category}: {count} cases in {time.monotonic() - t0:.0f} s")
    return results


def _runs(case, result):
    """(runs, clean runs) a case stands for: a batch of archives is one run each."""
    names = getattr(case, "runs", None)
    if names is None:
        return 1, int(result.clean)
    verdicts = getattr(case, "verdicts", {})
    bad = {n for n, (p, _) in verdicts.items() if p}
    ran = [n for n in names if n in verdicts]
    general = [p for p in result.problems if not any(p.startswith(n + ":") for n in names)]
    clean = 0 if general and not ran else len([n for n in ran if n not in bad])
    return len(ran), clean


def _kind(problem):
    """A problem with its particulars (paths, quotes, numbers) taken out, to group by."""
    text = re.sub(r"/\S+", "PATH", problem)
    text = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"arch\d+\.so", "archN.so", text)
    return text[:110]


def report(results, cases, work, args, seconds):
    by_name = {c.name: c for c in cases}
    totals = {}
    for r in results:
        runs, clean = _runs(by_name[r.name], r)
        t = totals.setdefault(r.category, [0, 0])
        t[0] += runs
        t[1] += clean
    with open(os.path.join(work, "results.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(dataclasses.asdict(r)) + "\n")
    failures = [r for r in results if not r.clean]
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "trust-campaign.sh")
    with open(os.path.join(work, "failures.txt"), "w") as f:
        for r in failures:
            case = by_name[r.name]
            f.write(f"== {r.name} [{r.category}] {case.note}\n")
            for p in r.problems:
                f.write(f"   problem: {p}\n")
            f.write(f"   status: {r.status}, {r.seconds} s\n")
            f.write(f"   rerun: {script} --seed {args.seed} --scale {args.scale} --only {r.name} --keep\n")
            f.write(f"   command: {r.command}\n")
            f.write(f"   inputs kept in: {os.path.join(work, 'failures', r.name)}\n")
            tail = r.stderr_tail.strip().splitlines()[-3:]
            for line in tail:
                f.write(f"   stderr: {line[:300]}\n")
            f.write("\n")
    print()
    print(f"{'category':<12} {'runs':>6} {'clean':>6} {'failed':>6}")
    for cat in ORDER:
        if cat in totals:
            runs, clean = totals[cat]
            print(f"{cat:<12} {runs:>6} {clean:>6} {runs - clean:>6}")
    repro_results = [r for r in results if r.category == "repro" or by_name[r.name].note.startswith("#26")]
    if repro_results:
        print("\nissue #26 reproductions (clean = fixed):")
        for r in repro_results:
            verdict = "fixed" if r.clean else "PRESENT"
            print(f"  {verdict:<8} {by_name[r.name].note}" + ("" if r.clean else f": {r.problems[0][:150]}"))
    stops = [r.stop_seconds for r in results if r.stop_seconds is not None and r.category in ("signals", "repro") and r.status in (130, 143)]
    if stops:
        print(f"\nSIGINT/SIGTERM to exit ({len(stops)} runs): median {statistics.median(stops):.3f} s, max {max(stops):.3f} s")
    if failures:
        print(f"\nfailures ({len(failures)} cases) by kind; every one with its reproducer in {os.path.join(work, 'failures.txt')}:")
        kinds = {}
        for r in failures:
            # A batch of archives leads with what happened to the interpreter, the archive next;
            # a scenario's own verdict says more than its exit status.
            said = [p for p in r.problems if not p.startswith("exit status")] or r.problems
            head = "; ".join(said[:2]) if r.category in ("py-archive", "python") else said[0]
            kinds.setdefault(_kind(head), []).append(r)
        for kind, rs in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            r = rs[0]
            print(f"  {len(rs):4d} x {kind}")
            print(f"         e.g. {r.name} [{by_name[r.name].note}]: {r.problems[0][:200]}")
            print(f"         {r.command[:400]}")
    disk = [r.name for r in failures if "No space left on device" in r.stderr_tail or any("No space left" in p for p in r.problems)]
    if disk:
        print(f"\nwarning: {len(disk)} failures met a full disk (No space left on device), the machine's, not q7's: {', '.join(disk[:10])}")
    all_runs = sum(t[0] for t in totals.values())
    all_clean = sum(t[1] for t in totals.values())
    print(f"\n{all_runs} runs, {all_clean} clean ({seconds / 60:.1f} min, seed {args.seed}, scale {args.scale})")
    sys.exit(0 if all_runs == all_clean else 1)


if __name__ == "__main__":
    main()
