#!/usr/bin/env bash
# Every benchmark of the project, then one table: each q7 figure beside the
# peer it was measured against in the same run, and the ratio.
#
#   scripts/bench.sh            all benchmarks (about 2 minutes once built)
#   BENCH_LOGS=DIR scripts/bench.sh   keep each benchmark's output in DIR
#
# The ratio column is peer time / q7 time: above 1, q7 is faster. Rows whose
# "peer" is q7 itself (the build's -j1 run, a full rebuild) say so. A
# benchmark whose output this script cannot parse shows its raw last line; one
# that fails shows its exit status. Each benchmark gets at most BENCH_TIMEOUT
# seconds (default 240) and the whole run stops starting new ones after 540 s,
# so it ends within 10 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."

TIMEOUT=${BENCH_TIMEOUT:-240}
DEADLINE=540
LOGS=${BENCH_LOGS:-$(mktemp -d)}
mkdir -p "$LOGS"
ROWS="$LOGS/rows.tsv"
: >"$ROWS"
START=$SECONDS

# row BENCHMARK Q7 PEER RATIO
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$ROWS"; }

# ratio A B: A / B with two decimals (awk, so no bc is needed).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

# run NAME ARGS...: runs `cargo bench ARGS` with a time limit; its stdout goes
# to $LOGS/NAME.out, cargo's progress to $LOGS/NAME.err. Returns the status.
run() {
  local name=$1
  shift
  if ((SECONDS - START > DEADLINE)); then
    echo "== $name: skipped (the run is past ${DEADLINE}s)" >&2
    row "$name" "skipped: time budget spent" "-" "-"
    return 99
  fi
  echo "== cargo bench $*" >&2
  local t0=$SECONDS status
  timeout "$TIMEOUT" cargo bench "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err"
  status=$?
  grep -v '^\s*$' "$LOGS/$name.out" | grep -v '^running 0 tests\|^test result: ok. 0 passed\|ignored$' | sed 's/^/   /' >&2
  echo "   ($((SECONDS - t0)) s)" >&2
  if ((status == 124)); then
    row "$name" "timed out after ${TIMEOUT}s" "-" "-"
  elif ((status != 0)); then
    row "$name" "FAILED (exit $status): $(grep -v '^\s*$' "$LOGS/$name.err" | tail -n 1)" "-" "-"
  fi
  return $status
}

# raw NAME: the last non-empty output line of a benchmark nothing parsed.
raw() {
  local last
  last=$(grep -v '^\s*$' "$LOGS/$1.out" | grep -v '^test \|^running ' | tail -n 1)
  row "$1" "unparsed: ${last:-no output}" "-" "-"
}

# --- q7 pack vs the binutils packaging recipe --------------------------------
# The whole-process row runs the release q7 binary, so build it first.
if cargo build --release -q -p q7 && run pack -p q7-pack; then
  n=0
  while IFS= read -r l; do
    re='^(.+) \(([0-9]+) bytes\): q7 pack([a-z ]*): ([0-9.]+ [^ ]*s) .*binutils recipe: ([0-9.]+ [^ ]*s) .*ratio ([0-9.]+)'
    if [[ $l =~ $re ]]; then
      row "pack${BASH_REMATCH[3]} ${BASH_REMATCH[1]} (${BASH_REMATCH[2]} B)" "${BASH_REMATCH[4]/µ/u}" \
        "binutils recipe ${BASH_REMATCH[5]}" "${BASH_REMATCH[6]}"
      n=$((n + 1))
    fi
  done <"$LOGS/pack.out"
  ((n)) || raw pack
fi

# --- q7 build: 8-core build -jN vs -j1, no-op rebuild -------------------------
if run build -p q7-build --bench build; then
  n=0 serial=""
  while IFS= read -r l; do
    if [[ $l =~ ^8-core\ build,\ -j1:\ +([0-9.]+)\ ms ]]; then
      serial=${BASH_REMATCH[1]}
    elif [[ $l =~ ^8-core\ build,\ -j([0-9]+):\ +([0-9.]+)\ ms ]]; then
      jobs=${BASH_REMATCH[1]} par=${BASH_REMATCH[2]}
      row "build 8 cores, q7 -j$jobs vs q7 -j1" "$par ms" "-j1: ${serial:-?} ms" "$(ratio "${serial:-0}" "$par")"
      n=$((n + 1))
    elif [[ $l =~ ^no-op\ rebuild:\ +([0-9.]+)\ ms ]]; then
      row "build: no-op rebuild vs full build" "${BASH_REMATCH[1]} ms" "full -j${jobs:-N}: ${par:-?} ms" \
        "$(ratio "${par:-0}" "${BASH_REMATCH[1]}")"
      n=$((n + 1))
    fi
  done <"$LOGS/build.out"
  ((n)) || raw build
fi

# --- forensics: carve vs grep, rebase-diff vs cmp -l --------------------------
if run forensics -p q7-image --bench forensics; then
  n=0 what="" ours=""
  while IFS= read -r l; do
    if [[ $l =~ ^carve:\ ([0-9]+\ MiB) ]]; then
      what="carve ${BASH_REMATCH[1]} host vs grep -abo"
    elif [[ $l =~ ^rebase-diff:\ ([0-9]+)\ synthetic\ images ]]; then
      what="rebase-diff ${BASH_REMATCH[1]} images vs cmp -l"
    elif [[ $l =~ q7\ (carve|rebase-diff)\ .*:\ +([0-9.]+)\ ms ]]; then
      ours=${BASH_REMATCH[2]}
    elif [[ $l =~ (grep\ -abo|cmp\ -l).*:\ +([0-9.]+)\ ms ]]; then
      row "$what" "$ours ms" "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ms" "$(ratio "${BASH_REMATCH[2]}" "$ours")"
      n=$((n + 1))
    elif [[ $l =~ (grep|cmp)\ not\ runnable ]]; then
      row "$what" "$ours ms" "${BASH_REMATCH[1]} not runnable" "-"
      n=$((n + 1))
    fi
  done <"$LOGS/forensics.out"
  ((n)) || raw forensics
fi

# --- disassembly vs llvm-objdump-22 -------------------------------------------
if run disasm -p q7-image --bench disasm; then
  n=0
  while IFS= read -r l; do
    re='^(.+): q7 ([0-9]+) lines in ([0-9.]+) ms = ([0-9.]+) M insn/s; llvm-objdump-22 ([0-9]+) lines in ([0-9.]+) ms = ([0-9.]+) M insn/s; q7/llvm = ([0-9.]+)x'
    if [[ $l =~ $re ]]; then
      name=${BASH_REMATCH[1]}
      name=${name%% (llvm:*}
      row "disasm $name" "${BASH_REMATCH[3]} ms (${BASH_REMATCH[4]} M insn/s)" \
        "llvm-objdump-22 ${BASH_REMATCH[6]} ms (${BASH_REMATCH[7]} M insn/s)" "${BASH_REMATCH[8]}"
      n=$((n + 1))
    elif [[ $l =~ not\ found ]]; then
      row "disasm" "-" "$l" "-"
      n=$((n + 1))
    fi
  done <"$LOGS/disasm.out"
  ((n)) || raw disasm
fi

# --- simulator vs QEMU (when q7-sim has benchmarks) ----------------------------
if compgen -G "crates/q7-sim/benches/*.rs" >/dev/null; then
  if run sim -p q7-sim; then
    n=0 ours="" rate=""
    while IFS= read -r l; do
      if [[ $l =~ ^q7\ ISS\ *:\ ([0-9]+)\ instructions\ in\ ([0-9.]+)\ s\ =\ ([0-9.]+)\ M ]]; then
        ours=${BASH_REMATCH[2]} rate=${BASH_REMATCH[3]}
      elif [[ $l =~ ^QEMU\ *:.*\ in\ ([0-9.]+)\ s\ =\ ([0-9.]+)\ M ]]; then
        row "simulator: same program vs QEMU" "$ours s ($rate M insn/s)" \
          "qemu-system-xtensa ${BASH_REMATCH[1]} s (${BASH_REMATCH[2]} M insn/s)" "$(ratio "${BASH_REMATCH[1]}" "$ours")"
        n=$((n + 1))
      fi
    done <"$LOGS/sim.out"
    ((n)) || raw sim
  fi
fi

# --- PyTorch: per-call cost of torch.ops through q7 (needs scripts/python-env.sh) --
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import q7' 2>/dev/null; then
  echo "== python/bench/call_overhead.py" >&2
  if timeout "$TIMEOUT" .venv/bin/python python/bench/call_overhead.py >"$LOGS/torch.out" 2>"$LOGS/torch.err"; then
    sed 's/^/   /' "$LOGS/torch.out" >&2
    n=0
    re='^ *([0-9]+) +[0-9]+ +([0-9.]+)ms +([0-9.]+)ms +([0-9.]+)ms +([0-9.]+)ms +([0-9.]+)ms'
    while IFS= read -r l; do
      if [[ $l =~ $re ]]; then
        row "torch.ops call, ${BASH_REMATCH[1]} float32, outside the simulator" "${BASH_REMATCH[4]} ms" \
          "torch.relu ${BASH_REMATCH[5]} ms" "$(ratio "${BASH_REMATCH[5]}" "${BASH_REMATCH[4]}")"
        n=$((n + 1))
      fi
    done <"$LOGS/torch.out"
    ((n)) || raw torch
  else
    row "torch.ops call" "FAILED: $(tail -n 1 "$LOGS/torch.err")" "-" "-"
  fi
else
  row "torch.ops call" "skipped: no .venv with q7 (scripts/python-env.sh)" "-" "-"
fi

# --- the table -----------------------------------------------------------------
echo
echo "q7 benchmarks ($(date -u +%Y-%m-%d), $(nproc) CPUs, $((SECONDS - START)) s; logs in $LOGS)"
awk -F'\t' '
  { for (i = 1; i <= 4; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
  END {
    h[1] = "benchmark"; h[2] = "q7"; h[3] = "peer"; h[4] = "peer/q7"
    for (i = 1; i <= 4; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
    line = sprintf("%-" w[1] "s | %-" w[2] "s | %-" w[3] "s | %" w[4] "s", h[1], h[2], h[3], h[4])
    print line
    rule = line; gsub(/[^|]/, "-", rule); gsub(/\|/, "+", rule); print rule
    for (r = 1; r <= NR; r++)
      printf "%-" w[1] "s | %-" w[2] "s | %-" w[3] "s | %" w[4] "s\n", cell[r, 1], cell[r, 2], cell[r, 3], cell[r, 4]
  }' "$ROWS"
echo "peer/q7: the peer's time over q7's (above 1: q7 is faster)."
