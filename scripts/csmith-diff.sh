#!/usr/bin/env bash
# Differential campaign of random C programs (Debian's csmith) against QEMU
# and q7's two engines:
#
#   scripts/csmith-diff.sh [N [FIRST_SEED]]      (defaults: 100 programs from seed 1)
#
# For each seed: csmith generates a program (no argc, no packed structs, at
# most 6 functions besides main, arrays of at most 3 dimensions); it is built for the
# board exactly as crates/q7-sim/tests/programs/build.sh builds the test
# programs (clang-22, the board link script, the simcall runtime) at -O0 and
# -O2, with csmith's runtime from scripts/csmith/ (printf without varargs,
# string functions, the SDK's 64-bit division); then it runs on
# `qemu-system-xtensa -M sim`, `q7 run-bare --engine interp` and
# `--engine jit` (the release build). QEMU, interp and jit must print the same
# (csmith's checksum line) and exit with the same code; interp and jit must
# also report the same instruction and cycle counts and final state
# (`--stats --state`). A program csmith or the compiler fails on, or that
# QEMU does not finish within QEMU_SECS, is skipped, not a mismatch.
#
# Environment: BOARDS (default de212; de233_fpu too), OPTS (default "0 2"),
# CSMITH_FLAGS (more csmith options, e.g. --float with BOARDS=de233_fpu),
# JIT_HOT (the jit compiles a block after it ran this many instructions, default 1: nearly
# all code runs compiled), JOBS (parallel programs, default 2), QEMU_SECS (default 10), Q7 (the binary,
# default target/release/q7, built if missing), KEEP=DIR (keep every
# program's files there; by default only mismatching ones are kept, in their
# temporary directory under TMPDIR, which the mismatch line names).
#
# Prints one line per mismatch with the command that reproduces it, then the
# summary; exits 1 when anything mismatched.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--one" ]; then
  # Worker: one seed, one result line per board and level on stdout:
  #   SEED BOARD OPT agree|skip REASON|mismatch WHAT
  seed=$2
  work=$(mktemp -d "${TMPDIR:-/tmp}/csmith-diff.XXXXXX")
  keep=false
  trap '$keep || rm -rf "$work"' EXIT
  # csmith writes platform.info into its working directory: the temporary one.
  if ! (cd "$work" && timeout 30 csmith --seed "$seed" --no-argc --no-packed-struct --max-funcs 6 \
      --max-array-dim 3 ${CSMITH_FLAGS:-} >"$work/gen$seed.c" 2>/dev/null); then
    for board in $BOARDS; do for opt in $OPTS; do echo "$seed $board $opt skip csmith"; done; done
    exit 0
  fi
  printf '#include "q7_csmith_rt.h"\n#include "gen%s.c"\n' "$seed" >"$work/csmith$seed.c"
  # csmith's runtime passes float pointers where it declares char *; clang-22
  # crashes on some float programs (a skip): no reproducer files in /tmp.
  cflags="-I$repo/scripts/csmith -I$repo/scripts/csmith/include -I/usr/include/csmith -w -Wno-incompatible-pointer-types -fno-crash-diagnostics"
  for board in $BOARDS; do
    for opt in $OPTS; do
      elf="$work/$board/csmith$seed.$board-O$opt.elf"
      tag="$seed $board $opt"
      if ! CFLAGS=$cflags bash "$repo/crates/q7-sim/tests/programs/build.sh" "$work/$board" "$board" -O "$opt" \
          "$work/csmith$seed.c" >/dev/null 2>"$work/build-$board-O$opt.err"; then
        echo "$tag skip compile"
        continue
      fi
      set +e
      timeout "$QEMU_SECS" qemu-system-xtensa -M sim -cpu "$board" -semihosting -nographic -monitor none \
        -kernel "$elf" </dev/null >"$work/qemu.out" 2>/dev/null
      qemu_code=$?
      set -e
      if [ "$qemu_code" = 124 ]; then
        echo "$tag skip qemu-timeout"
        continue
      fi
      what=()
      for engine in interp jit; do
        set +e
        "$Q7" run-bare "$elf" --board "$board" --engine "$engine" --jit-hot "$JIT_HOT" --stats --state --timeout 120 \
          >"$work/$engine.out" 2>"$work/$engine.err"
        echo $? >"$work/$engine.code"
        set -e
        cmp -s "$work/qemu.out" "$work/$engine.out" || what+=("$engine-output")
        [ "$(cat "$work/$engine.code")" = "$qemu_code" ] || what+=("$engine-exit($(cat "$work/$engine.code")!=$qemu_code)")
      done
      # The counts and the state hash: the last two lines of stderr.
      counts() { grep -E '^(state |[0-9]+ instructions)' "$1" | sed 's/ in [0-9.]* s.*//'; }
      [ "$(counts "$work/interp.err")" = "$(counts "$work/jit.err")" ] || what+=("engines-counts-or-state")
      if [ ${#what[@]} -eq 0 ]; then
        echo "$tag agree"
      else
        keep=true
        echo "$tag mismatch $(
          IFS=,
          echo "${what[*]}"
        ) $work"
      fi
    done
  done
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP/seed$seed"; fi
  exit 0
fi

count=${1:-100}
first=${2:-1}
export BOARDS=${BOARDS:-de212} OPTS=${OPTS:-"0 2"} QEMU_SECS=${QEMU_SECS:-10} JIT_HOT=${JIT_HOT:-1}
export Q7=${Q7:-$repo/target/release/q7}
for tool in csmith clang-22 llvm-mc-22 xtensa-lx106-elf-ld qemu-system-xtensa; do
  command -v "$tool" >/dev/null || { echo "csmith-diff: $tool not found: run scripts/bootstrap.sh" >&2; exit 2; }
done
[ -d /usr/include/csmith ] || { echo "csmith-diff: /usr/include/csmith missing: run scripts/bootstrap.sh" >&2; exit 2; }
[ -x "$Q7" ] || (cd "$repo" && cargo build --release -p q7 -q)
results=$(mktemp)
trap 'rm -f "$results"' EXIT
started=$SECONDS
seq "$first" $((first + count - 1)) | xargs -P "${JOBS:-2}" -I{} bash "$0" --one {} | tee "$results" |
  awk '$4 == "mismatch" { print "MISMATCH seed " $1 " " $2 " -O" $3 ": " $5 " (files: " $6 ")"; fflush() }'
mismatches=$(awk '$4 == "mismatch"' "$results" | wc -l)
summary() { awk -v what="$1" '$4 == what' "$results" | wc -l; }
echo "csmith-diff: $count programs (seeds $first..$((first + count - 1)), boards $BOARDS, -O {${OPTS// /,}}): $(wc -l <"$results") runs," \
  "$(summary agree) agree, $(summary skip) skipped ($(awk '$4 == "skip" { print $5 }' "$results" | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')), $mismatches mismatches in $((SECONDS - started)) s"
for part in interp jit engines; do
  echo "  $part: $(awk -v p="$part-" '$4 == "mismatch" && index($5, p)' "$results" | wc -l) runs differ"
done
awk '$4 == "mismatch" { print "  reproduce: BOARDS=" $2 " OPTS=" $3 " scripts/csmith-diff.sh 1 " $1 }' "$results"
[ "$mismatches" -eq 0 ]
