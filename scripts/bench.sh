#!/usr/bin/env bash
# Every benchmark of the project, then one table: each q7 figure beside the
# peer it was measured against in the same run, and the ratio.
#
#   scripts/bench.sh            all benchmarks (about 3 minutes once built)
#   BENCH_LOGS=DIR scripts/bench.sh   keep each benchmark's output in DIR
#   BENCH_RUNS=N scripts/bench.sh     runs per whole-process figure (default 7)
#   BENCH_BASE=Q7 scripts/bench.sh    also time another q7 binary (an older
#                                     build) on the --stats rows, runs alternating
#   BENCH_IR=1 scripts/bench.sh       also count the checker's cost in host
#                                     instructions (valgrind; deterministic, so
#                                     fit for a loaded machine; adds ~15 min)
#
# Where the peer is a process (grep, cmp, the binutils recipe), q7 is timed
# as a process too: the release `q7` binary, start-up and output included,
# stdout to a file for both (GNU grep skips its work when stdout is
# /dev/null), q7 and peer runs alternating so a change in the machine's load
# hits both alike, the median of BENCH_RUNS runs each.
#
# The ratio column is peer time / q7 time: above 1, q7 is faster. Rows whose
# "peer" is q7 itself (the build's -j1 run, a full rebuild) say so. A
# benchmark whose output this script cannot parse shows its raw last line; one
# that fails shows its exit status. Each benchmark gets at most BENCH_TIMEOUT
# seconds (default 240) and the whole run stops starting new ones after 540 s,
# so it ends within 10 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C # one decimal point for EPOCHREALTIME, awk and grep

TIMEOUT=${BENCH_TIMEOUT:-240}
RUNS=${BENCH_RUNS:-7}
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

# wall CMD...: runs CMD (a command or shell function) with stdout to a file;
# its wall time in ms goes to $LAST. Fails when CMD does.
wall() {
  local t0=$EPOCHREALTIME status
  "$@" >"$LOGS/last.out" 2>>"$LOGS/whole-process.err"
  status=$?
  LAST=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
  return $status
}

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# versus NAME OURS PEER LABEL: RUNS alternating runs of the functions OURS
# and PEER; a row with both medians (LABEL names the peer).
versus() {
  local name=$1 ours=$2 peer=$3 label=$4 a=() b=() i
  echo "== whole process: $name ($RUNS runs each)" >&2
  for ((i = 0; i < RUNS; i++)); do
    wall "$ours" || { row "$name" "FAILED: $ours (see $LOGS/whole-process.err)" "-" "-"; return 1; }
    a+=("$LAST")
    wall "$peer" || { row "$name" "$(median "${a[@]}") ms" "FAILED: $label" "-"; return 1; }
    b+=("$LAST")
  done
  echo "   q7: ${a[*]} ms; $label: ${b[*]} ms" >&2
  row "$name" "$(median "${a[@]}") ms" "$label $(median "${b[@]}") ms" "$(ratio "$(median "${b[@]}")" "$(median "${a[@]}")")"
}

# The release binary the whole-process rows time.
Q7=""
echo "== cargo build --release -p q7" >&2
if timeout "$TIMEOUT" cargo build --release -p q7 >"$LOGS/q7-release.out" 2>&1; then
  Q7=$PWD/target/release/q7
else
  row "whole-process rows" "FAILED: cargo build --release -p q7 ($LOGS/q7-release.out)" "-" "-"
fi

# raw NAME: the last non-empty output line of a benchmark nothing parsed.
raw() {
  local last
  last=$(grep -v '^\s*$' "$LOGS/$1.out" | grep -v '^test \|^running ' | tail -n 1)
  row "$1" "unparsed: ${last:-no output}" "-" "-"
}

# --- q7 pack vs the binutils packaging recipe --------------------------------
# The whole-process rows run the release q7 binary, so build it first, and the
# do-nothing Rust binary the start-up row sets q7 pack against.
cargo build --release -q -p q7 || row pack "FAILED: cargo build --release -p q7" "-" "-"
cargo build --release -q -p q7-pack --example minimal_main || row start-up "FAILED: cargo build --example minimal_main" "-" "-"
if run pack -p q7-pack; then
  n=0
  while IFS= read -r l; do
    re='^(.+) \(([0-9]+) bytes\): q7 pack([a-z ]*): ([0-9.]+ [^ ]*s) .*binutils recipe: ([0-9.]+ [^ ]*s) .*ratio ([0-9.]+)'
    start='^start-up: q7 pack as a process: ([0-9.]+) µs, a minimal Rust binary: ([0-9.]+) µs .* q7 pack/minimal ([0-9.]+)×; cpu time: q7 pack ([0-9.]+) µs, minimal ([0-9.]+) µs .* q7 pack/minimal ([0-9.]+)×'
    if [[ $l =~ $re ]]; then
      row "pack${BASH_REMATCH[3]} ${BASH_REMATCH[1]} (${BASH_REMATCH[2]} B)" "${BASH_REMATCH[4]/µ/u}" \
        "binutils recipe ${BASH_REMATCH[5]}" "${BASH_REMATCH[6]}"
      n=$((n + 1))
    elif [[ $l =~ $start ]]; then
      # The goal is q7 pack <= 1.5x the minimal binary, i.e. a ratio >= 0.67.
      row "start-up: q7 pack as a process vs fn main(){} (wall; cpu)" \
        "${BASH_REMATCH[1]} us; cpu ${BASH_REMATCH[4]} us" "minimal ${BASH_REMATCH[2]} us; cpu ${BASH_REMATCH[5]} us" \
        "$(ratio "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}"); $(ratio "${BASH_REMATCH[5]}" "${BASH_REMATCH[4]}")"
      n=$((n + 1))
    fi
  done <"$LOGS/pack.out"
  ((n)) || raw pack
fi

# --- q7 build: 8-core build -jN vs -j1, no-op rebuild (whole processes) -------
# Fresh build directories, one warm SDK cache; `cargo bench -p q7-build`
# measures the same in-process.
if [[ -n $Q7 ]] && ((SECONDS - START <= DEADLINE)); then
  export Q7_CACHE_DIR=$LOGS/q7-cache
  build_n=0
  q7_build() {
    build_n=$((build_n + 1))
    "$Q7" build --toolchain open --name librelu --fn relu_forward --schema 'relu_forward(Tensor _0) -> Tensor' \
      --multicore --build-dir "$LOGS/build/b$build_n" -j"$1" sdk/tests/ops/relu_multicore.cpp
  }
  build_parallel() { q7_build "$(nproc)"; }
  build_serial() { q7_build 1; }
  build_again() { "$Q7" build --toolchain open --name librelu --fn relu_forward \
    --schema 'relu_forward(Tensor _0) -> Tensor' --multicore --build-dir "$LOGS/build/b1" sdk/tests/ops/relu_multicore.cpp; }
  if wall build_serial; then # warms the SDK cache
    versus "build 8 cores, q7 -j$(nproc) vs q7 -j1" build_parallel build_serial "-j1"
    versus "build: no-op rebuild vs full build -j$(nproc)" build_again build_parallel "full build"
    # The -j1 timeline: each job's own time, and what those allow on free
    # cores (a loaded machine gives this session less than its cores).
    "$Q7" build -v -j1 --toolchain open --name librelu --fn relu_forward \
      --schema 'relu_forward(Tensor _0) -> Tensor' --multicore --build-dir "$LOGS/build/timeline" \
      sdk/tests/ops/relu_multicore.cpp 2>&1 >/dev/null | sed -n '/^q7 build: timeline/,$p' >"$LOGS/build-timeline.txt"
    sed 's/^/   /' "$LOGS/build-timeline.txt" >&2
    re='on ([0-9]+) free cores: at least ([0-9.]+) ms \(([0-9.]+)x their ([0-9.]+) ms'
    if [[ $(tail -n 1 "$LOGS/build-timeline.txt") =~ $re ]]; then
      row "build 8 cores: -j1 job times placed on ${BASH_REMATCH[1]} free cores" "${BASH_REMATCH[2]} ms" \
        "one after another ${BASH_REMATCH[4]} ms" "${BASH_REMATCH[3]}"
    fi
  else
    row "build 8 cores" "FAILED: $(tail -n 1 "$LOGS/whole-process.err")" "-" "-"
  fi
  unset Q7_CACHE_DIR
fi

# --- q7 build: the IR legalisation step, after vs before (issue 20) -------------
if run compile_paths -p q7-build --bench compile_paths; then
  n=0
  while IFS= read -r l; do
    if [[ $l =~ ^(compile|q7\ build),\ ([^:]+):\ +before\ +([0-9.]+)\ ms\ +after\ +([0-9.]+)\ ms ]]; then
      row "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}: with IR step vs without" "${BASH_REMATCH[4]} ms" \
        "q7 without: ${BASH_REMATCH[3]} ms" "$(ratio "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}")"
      n=$((n + 1))
    fi
  done <"$LOGS/compile_paths.out"
  ((n)) || raw compile_paths
fi

# --- forensics: carve vs grep -abo, rebase-diff vs cmp -l (whole processes) ---
# The bench generates the inputs (and times the library in-process, in its log).
INPUTS=$LOGS/forensics-inputs
if Q7_BENCH_INPUTS=$INPUTS run forensics -p q7-image --bench forensics && [[ -n $Q7 ]]; then
  q7_carve() { "$Q7" inspect carve "$INPUTS/host.bin"; }
  grep_carve() { grep -abo -P '\x7fELF' "$INPUTS/host.bin"; }
  q7_rebase() { "$Q7" inspect rebase-diff "$INPUTS"/core_cpu{0..7}.so; }
  # cmp exits 1 when the files differ, as they do.
  cmp_rebase() {
    local i
    for i in 1 2 3 4 5 6 7; do
      cmp -l "$INPUTS/core_cpu0.so" "$INPUTS/core_cpu$i.so"
      (($? <= 1)) || return 2
    done
  }
  mib=$(($(stat -c %s "$INPUTS/host.bin") >> 20))
  versus "carve ${mib} MiB host vs grep -abo" q7_carve grep_carve "grep -abo"
  # The floor under any carve: map the file and count the magics on every
  # core, nothing else (crates/q7-image/examples/carve_floor.rs). Its ratio
  # to grep bounds carve's on this machine.
  if cargo build --release -q -p q7-image --example carve_floor >&2; then
    floor_carve() { "$PWD/target/release/examples/carve_floor" "$INPUTS/host.bin"; }
    versus "carve floor (map + memmem count, all cores) vs grep -abo" floor_carve grep_carve "grep -abo"
    versus "carve ${mib} MiB host vs its floor" q7_carve floor_carve "floor"
  else
    row "carve floor" "FAILED: cargo build --example carve_floor" "-" "-"
  fi
  versus "rebase-diff 8 images vs cmp -l x7" q7_rebase cmp_rebase "cmp -l x7"
fi

# --- disassembly vs llvm-objdump-22 -------------------------------------------
# The bench times the release q7 binary as a process; build it outside the time limit.
cargo build --release -q -p q7 --bin q7 >&2
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
    n=0
    while IFS= read -r l; do
      re='^(.+) \(([^ ]+) ([^ )]+)\): q7 [0-9]+ instructions in ([0-9.]+) s = ([0-9.]+) M instr/s; QEMU ([0-9.]+) s = ([0-9.]+) M instr/s; q7/QEMU = ([0-9.]+)x'
      if [[ $l =~ $re ]]; then
        row "simulator: ${BASH_REMATCH[1]} (${BASH_REMATCH[2]})" "${BASH_REMATCH[4]} s (${BASH_REMATCH[5]} M insn/s)" \
          "qemu-system-xtensa ${BASH_REMATCH[6]} s (${BASH_REMATCH[7]} M insn/s)" "${BASH_REMATCH[8]}"
        n=$((n + 1))
      fi
    done <"$LOGS/sim.out"
    ((n)) || raw sim
  fi
fi

# --- q7 run --native vs the simulator, per example (whole processes) ----------
# Each example built once (open toolchain), then `q7 run --native` (its
# ASan+UBSan and MSan host builds, cached in the build directory by a warm-up
# run) against `q7 run` on the same 1M-element input, 3 runs each. The host
# SDK is built once per cache (Q7_CACHE_DIR, else ~/.cache/q7; ~25 s cold).
if [[ -n $Q7 ]] && ((SECONDS - START <= DEADLINE)); then
  NATIVE=$LOGS/native
  mkdir -p "$NATIVE"
  python3 scripts/npy_tool.py make "$NATIVE/x.npy" 1048576 >/dev/null
  python3 scripts/npy_tool.py make-boxes "$NATIVE/boxes.npy" 262144 >/dev/null
  # EXAMPLE FUNCTION ARGS...
  while read -r example fn args; do
    ((SECONDS - START <= DEADLINE)) || break
    dir=$NATIVE/$example
    if ! (cd "examples/$example" && "$Q7" build --toolchain open --build-dir "$dir") >"$NATIVE/$example.build" 2>&1; then
      row "run --native $example" "FAILED: q7 build ($NATIVE/$example.build)" "-" "-"
      continue
    fi
    read -ra extra <<<"${args//@/$NATIVE/}"
    run_args=("$dir" --fn "$fn" "${extra[@]}")
    sim_run() { "$Q7" run "${run_args[@]}"; }
    native_run() { "$Q7" run "${run_args[@]}" --native; }
    if ! wall native_run; then # warm-up: the host builds
      row "run --native $example" "FAILED: $(tail -n 1 "$LOGS/whole-process.err")" "-" "-"
      continue
    fi
    RUNS=3 versus "run $example $fn, 1M elements: --native vs simulator" native_run sim_run "q7 run (simulator)"
  done <<'LIST'
relu relu_forward --in @x.npy
relu_stream relu_forward --in @x.npy
relu_tcm relu_forward --in @x.npy
relu_multicore relu_forward --in @x.npy
scale_add scale_add --in @x.npy --arg 0.3
reduce reduce_sum --in @x.npy
giou_multicore giou_forward --in @boxes.npy --in @boxes.npy --dst-shape 262144
LIST
fi

# --- q7 debug: a breakpoint near the end, and going back from there ---------
# `q7 debug -x` (whole process) continuing to a breakpoint near the end of the
# run (the first core's exit call) against a plain `q7 run` of the same op
# (goal: within 2x); then the same session plus two reverse-stepi (the time a
# step back costs, goal under 1 s) and the snapshots' memory it printed.
if [[ -n $Q7 && -d ${NATIVE:-/nonexistent} ]] && ((SECONDS - START <= DEADLINE)); then
  printf 'break q7_simcall\ncontinue\ninfo time\nquit\n' >"$LOGS/debug-continue.txt"
  printf 'break q7_simcall\ncontinue\nreverse-stepi\nreverse-stepi\ninfo time\nquit\n' >"$LOGS/debug-back.txt"
  while read -r example fn args; do
    ((SECONDS - START <= DEADLINE)) || break
    [[ -d $NATIVE/$example ]] || continue
    read -ra extra <<<"${args//@/$NATIVE/}"
    dbg_args=("$NATIVE/$example" --fn "$fn" "${extra[@]}")
    plain_run() { "$Q7" run "${dbg_args[@]}"; }
    to_break() { "$Q7" debug "${dbg_args[@]}" -x "$LOGS/debug-continue.txt"; }
    and_back() { "$Q7" debug "${dbg_args[@]}" -x "$LOGS/debug-back.txt"; }
    RUNS=3 versus "debug $example: continue to a breakpoint near the end" to_break plain_run "q7 run"
    RUNS=3 versus "debug $example: the same plus 2 reverse-stepi" and_back to_break "without them"
    steps=$(grep -o '^[0-9]* steps over all cores; [0-9]* snapshots holding [0-9.]* MiB' "$LOGS/last.out" | tail -n 1)
    row "debug $example: run length and snapshot memory" "${steps:-unparsed}" "-" "-"
  done <<'LIST'
relu relu_forward --in @x.npy
relu_multicore relu_forward --in @x.npy
giou_multicore giou_forward --in @boxes.npy --in @boxes.npy --dst-shape 262144
LIST
fi

# --- simulated instructions per second on the example ops (issue 15) ---------
# `q7 run --stats --json` (instructions over the run's wall time, as --stats
# prints it), the JIT beside the interpreter, checks on and off, on the op
# builds the native rows above made; the median of 3 runs each. Then the
# checker's cost (issue 28): checks-on time over checks-off time per engine;
# and with BENCH_BASE, checks on against that binary, runs alternating.
stats_rate() { # Q7 DIR FN ENGINE CHECKS ARGS...: "M instr/s" of one run
  local q7=$1 dir=$2 fn=$3 engine=$4 checks=$5
  shift 5
  "$q7" run "$dir" --fn "$fn" "$@" --out "$LOGS/stats-out.npy" --stats --json --engine "$engine" $checks 2>/dev/null |
    python3 -c 'import json, sys; r = json.load(sys.stdin); print("%.0f" % (sum(s["instructions"] for s in r["stats"]) / r["wall_seconds"] / 1e6))'
}
# ir_rate Q7 DIR FN ENGINE CHECKS ARGS...: host instructions per simulated
# instruction inside the run (callgrind, collecting in Machine::run only).
ir_rate() {
  local q7=$1 dir=$2 fn=$3 engine=$4 checks=$5
  shift 5
  valgrind --tool=callgrind --smc-check=all --toggle-collect='*Machine*run*' --callgrind-out-file=/dev/null \
    "$q7" run "$dir" --fn "$fn" "$@" --out "$LOGS/stats-out.npy" --stats --json --engine "$engine" $checks \
    2>"$LOGS/callgrind.err" | python3 -c 'import json, re, sys
r = json.load(sys.stdin)
ir = int(re.search(r"Collected : (\d+)", open(sys.argv[1]).read()).group(1))
print("%.2f" % (ir / sum(s["instructions"] for s in r["stats"])))' "$LOGS/callgrind.err"
}
BASE=${BENCH_BASE:-}
if [[ -n $Q7 && -d ${NATIVE:-/nonexistent} ]] && ((SECONDS - START <= DEADLINE)); then
  echo "== q7 run --stats on the example ops: jit vs interp, checks on and off${BASE:+, and $BASE}" >&2
  while read -r example fn args; do
    ((SECONDS - START <= DEADLINE)) || break
    [[ -d $NATIVE/$example ]] || continue
    read -ra extra <<<"${args//@/$NATIVE/}"
    declare -A m=()
    for checks in "" --no-checks; do
      j=() i=() bj=() bi=()
      for _ in 1 2 3; do
        j+=("$(stats_rate "$Q7" "$NATIVE/$example" "$fn" jit "$checks" "${extra[@]}")")
        i+=("$(stats_rate "$Q7" "$NATIVE/$example" "$fn" interp "$checks" "${extra[@]}")")
        if [[ -n $BASE && -z $checks ]]; then
          bj+=("$(stats_rate "$BASE" "$NATIVE/$example" "$fn" jit "" "${extra[@]}")")
          bi+=("$(stats_rate "$BASE" "$NATIVE/$example" "$fn" interp "" "${extra[@]}")")
        fi
      done
      echo "   $example ${checks:-checks on}: jit ${j[*]}, interp ${i[*]} M instr/s" >&2
      m[jit$checks]=$(median "${j[@]}") m[interp$checks]=$(median "${i[@]}")
      row "q7 run --stats $example ${checks:-(checks on)}, M instr/s" "jit ${m[jit$checks]}" \
        "interp ${m[interp$checks]}" "$(ratio "${m[jit$checks]}" "${m[interp$checks]}")"
      if ((${#bj[@]})); then
        echo "   $example checks on, $BASE: jit ${bj[*]}, interp ${bi[*]} M instr/s" >&2
        for engine in jit interp; do
          if [[ $engine == jit ]]; then b=$(median "${bj[@]}"); else b=$(median "${bi[@]}"); fi
          row "q7 run --stats $example (checks on), $engine, M instr/s" "${m[$engine]}" "BENCH_BASE $b" \
            "$(ratio "${m[$engine]}" "$b")"
        done
      fi
    done
    # Time is instructions over rate: checks-on time / checks-off time.
    row "checker cost on $example: checks-on time / checks-off time" \
      "jit $(ratio "${m[jit--no-checks]}" "${m[jit]}")" "interp $(ratio "${m[interp--no-checks]}" "${m[interp]}")" "-"
    unset m
    if [[ -n ${BENCH_IR:-} ]] && command -v valgrind >/dev/null; then
      for engine in jit interp; do
        ((SECONDS - START <= DEADLINE + 900)) || break
        on=$(ir_rate "$Q7" "$NATIVE/$example" "$fn" "$engine" "" "${extra[@]}")
        off=$(ir_rate "$Q7" "$NATIVE/$example" "$fn" "$engine" --no-checks "${extra[@]}")
        base=${BASE:+$(ir_rate "$BASE" "$NATIVE/$example" "$fn" "$engine" "" "${extra[@]}")}
        echo "   $example $engine host instructions per instruction: on $on, off $off${base:+, BENCH_BASE on $base}" >&2
        peer=- against=-
        [[ -z $base ]] || peer="BENCH_BASE on $base" against=$(ratio "$base" "$on")
        row "checker cost on $example, $engine, host instructions per instruction: on / off" \
          "$on / $off = $(ratio "$on" "$off")" "$peer" "$against"
      done
    fi
  done <<'LIST'
relu relu_forward --in @x.npy
relu_stream relu_forward --in @x.npy
relu_tcm relu_forward --in @x.npy
relu_multicore relu_forward --in @x.npy
giou_multicore giou_forward --in @boxes.npy --in @boxes.npy --dst-shape 262144
LIST
fi

# --- q7 run: the eight cores on host threads (issue 32) -----------------------
# Each 8-core op (whole processes, 1M elements) under `--deterministic` (the
# round-robin on one thread) against `--threads 2`, checks off and on (runs
# with checks keep the round-robin: the row shows what that costs), 3 runs
# each alternating; the row's ratio is the speed-up (goal on 2 cores: >= 1.8
# with checks off for GIOU and the sort). CPU time (user + sys, medians) is
# in the q7 column. Then a scaling row: GIOU checks off at --threads 1, 2 and
# the host's count. The load average is noted: the machine may be shared.
if [[ -n $Q7 ]] && ((SECONDS - START <= DEADLINE)); then
  PAR=$LOGS/parallel
  mkdir -p "$PAR"
  python3 scripts/npy_tool.py make "$PAR/x.npy" 1048576 >/dev/null
  python3 scripts/npy_tool.py make-boxes "$PAR/boxes.npy" 262144 >/dev/null
  row "load average at the parallel rows (uptime)" "$(uptime | sed 's/.*load average: //')" "-" "-"
  # cpu_of CMD...: runs CMD with stdout to a file; its user + sys seconds
  # go to $CPU_S and its wall ms to $LAST.
  cpu_of() {
    local t0=$EPOCHREALTIME status
    /usr/bin/time -f '%U %S' -o "$PAR/time.txt" "$@" >"$LOGS/last.out" 2>>"$LOGS/whole-process.err"
    status=$?
    LAST=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
    CPU_S=$(awk '{ printf "%.2f", $1 + $2 }' "$PAR/time.txt")
    return $status
  }
  while read -r folder fn args; do
    ((SECONDS - START <= DEADLINE)) || break
    dir=$PAR/$(basename "$folder")
    if ! (cd "$folder" && "$Q7" build --toolchain open --build-dir "$dir") >"$dir.build" 2>&1; then
      row "parallel $folder" "FAILED: q7 build ($dir.build)" "-" "-"
      continue
    fi
    read -ra extra <<<"${args//@/$PAR/}"
    for checks in --no-checks ""; do
      seq_w=() seq_c=() par_w=() par_c=() failed=""
      for ((i = 0; i < 3; i++)); do
        # shellcheck disable=SC2086 # $checks is one flag or none
        cpu_of "$Q7" run "$dir" --fn "$fn" "${extra[@]}" $checks --deterministic --out "$PAR/seq.npy" || failed=sequential
        seq_w+=("$LAST") seq_c+=("$CPU_S")
        # shellcheck disable=SC2086
        cpu_of "$Q7" run "$dir" --fn "$fn" "${extra[@]}" $checks --threads 2 --out "$PAR/par.npy" || failed=parallel
        par_w+=("$LAST") par_c+=("$CPU_S")
        cmp -s "$PAR/seq.npy" "$PAR/par.npy" || failed="outputs differ"
      done
      label="run $(basename "$folder") $fn, 1M, ${checks:-checks on}: --threads 2 vs --deterministic"
      if [[ -n $failed ]]; then
        row "$label" "FAILED: $failed (see $LOGS/whole-process.err)" "-" "-"
        continue
      fi
      echo "   $label: threads 2 ${par_w[*]} ms (cpu ${par_c[*]} s); deterministic ${seq_w[*]} ms (cpu ${seq_c[*]} s)" >&2
      row "$label" "$(median "${par_w[@]}") ms; cpu $(median "${par_c[@]}") s" \
        "deterministic $(median "${seq_w[@]}") ms; cpu $(median "${seq_c[@]}") s" \
        "$(ratio "$(median "${seq_w[@]}")" "$(median "${par_w[@]}")")"
    done
    if [[ $folder == examples/giou_multicore ]]; then
      scaling=""
      for threads in 1 2 "$(nproc)"; do
        times=()
        for ((i = 0; i < 3; i++)); do
          cpu_of "$Q7" run "$dir" --fn "$fn" "${extra[@]}" --no-checks --threads "$threads" --out "$PAR/par.npy"
          times+=("$LAST")
        done
        scaling+="${scaling:+, }$threads: $(median "${times[@]}") ms"
      done
      row "scaling: giou_multicore checks off, --threads 1, 2, $(nproc) (the host's; wall)" "$scaling" "-" "-"
    fi
  done <<'LIST'
examples/relu_multicore relu_forward --in @x.npy
examples/giou_multicore giou_forward --in @boxes.npy --in @boxes.npy --dst-shape 262144
builtin sort_multicore_compute --in @x.npy
examples/torch_mlp_multicore relu_forward --in @x.npy
LIST
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
      elif [[ $l =~ ^shape\ step\ of\ (.+):\ ([0-9.]+)\ us\ per\ call\ \(goal\ \<=\ ([0-9]+)\ us ]]; then
        row "torch.ops call: the shape step of ${BASH_REMATCH[1]}" "${BASH_REMATCH[2]} us" "goal <= ${BASH_REMATCH[3]} us" \
          "$(ratio "${BASH_REMATCH[3]}" "${BASH_REMATCH[2]}")"
      fi
    done <"$LOGS/torch.out"
    ((n)) || raw torch
  else
    row "torch.ops call" "FAILED: $(tail -n 1 "$LOGS/torch.err")" "-" "-"
  fi
else
  row "torch.ops call" "skipped: no .venv with q7 (scripts/python-env.sh)" "-" "-"
fi

# --- the edit-run loop of an op author (issue 31; needs scripts/python-env.sh) --
# python/bench/edit_loop.py: custom_op.load of examples/torch_mlp cold (empty
# op cache, SDK prepared), warm, after a whitespace change in shape.cpp and
# after switching on -g, each a new process; the goal beside each figure
# (the "peer" column; peer/q7 above 1: the goal is met).
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import q7' 2>/dev/null; then
  echo "== python/bench/edit_loop.py" >&2
  if timeout "$TIMEOUT" .venv/bin/python python/bench/edit_loop.py >"$LOGS/edit_loop.out" 2>"$LOGS/edit_loop.err"; then
    sed 's/^/   /' "$LOGS/edit_loop.out" >&2
    n=0
    re='^edit-run loop: (.+): ([0-9.]+) s \(goal <= ([0-9.]+) s'
    while IFS= read -r l; do
      if [[ $l =~ $re ]]; then
        row "edit-run loop: ${BASH_REMATCH[1]}" "${BASH_REMATCH[2]} s" "goal <= ${BASH_REMATCH[3]} s" \
          "$(ratio "${BASH_REMATCH[3]}" "${BASH_REMATCH[2]}")"
        n=$((n + 1))
      elif [[ $l =~ ^edit-run\ loop:\ (preparing[^:]*):\ ([0-9.]+)\ s ]]; then
        row "edit-run loop: ${BASH_REMATCH[1]}" "${BASH_REMATCH[2]} s" "-" "-"
      fi
    done <"$LOGS/edit_loop.out"
    ((n)) || raw edit_loop
  else
    row "edit-run loop" "FAILED: $(tail -n 1 "$LOGS/edit_loop.err")" "-" "-"
  fi
else
  row "edit-run loop" "skipped: no .venv with q7 (scripts/python-env.sh)" "-" "-"
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
