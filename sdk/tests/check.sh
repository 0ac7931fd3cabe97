#!/usr/bin/env bash
# Xtensa compile/link check of the open device SDK (sdk/).
#
# 1. Builds libq7sdk.a from every sdk/src/**/*.{c,cpp,S} with the open
#    profile's commands (sdk/README.md), warnings as errors.
# 2. Compiles the operators in sdk/tests/ops/ (written as in AWS's Neuron
#    documentation) and the stand-in wrapper, with the vendor's -Wall -Werror.
# 3. Links each operator with the cpu0 LSP from `q7 lsp` and reports undefined
#    symbols.
# 4. With qemu-system-xtensa installed: runs SDK-built programs on QEMU's
#    de233_fpu (sdk/tests/qemu/): output byte-identical to a host build,
#    start-up and stack-switch checks, the relu operators through the real
#    runtime path, and the torch API self-checks.
#
#   sdk/tests/check.sh [WORKDIR]      (default: a temporary directory)
#
# Q7 names the q7 binary (default: target/debug/q7, built if missing).
# Exits non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sdk=$(cd "$here/.." && pwd)
root=$(cd "$sdk/.." && pwd)
if [ $# -ge 1 ]; then
  work=$1
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

resource_include=$(clang-22 -print-resource-dir)/include
# use_features F...: the Xtensa options the compile commands target.
use_features() {
  local feature_flags=()
  for f in "$@"; do feature_flags+=(-Xclang -target-feature -Xclang "+$f"); done
  mattr=$(printf '+%s,' "$@")
  mattr=${mattr%,}
  local common=(--target=xtensa -Os -ffreestanding -fno-jump-tables -ffunction-sections -fdata-sections
                -nostdinc -isystem "$resource_include" -isystem "$sdk/include" "${feature_flags[@]}")
  cxx_flags=(-std=c++14 -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-init-array "${common[@]}")
  c_flags=(-std=c11 "${common[@]}")
}
# The Vision-Q7 scalar options of the open profile.
q7_features=(windowed density loop mul16 mul32 mul32high div32 nsa minmax sext clamps bool fp prid)
use_features "${q7_features[@]}"
warnings=(-Wall -Wextra -Werror)

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# compile SRC OBJ [extra flags...]
compile() {
  local src=$1 obj=$2
  shift 2
  local base=${obj%.o}
  case "$src" in
    *.S)
      # clang-22 does not pass -target-feature to its integrated assembler for
      # assembly input, so: preprocess, then assemble with llvm-mc.
      clang-22 --target=xtensa -E -x assembler-with-cpp -isystem "$sdk/include" "$src" -o "$base.s" &&
        llvm-mc-22 -triple=xtensa -mattr="$mattr${extra_mattr:-}" -filetype=obj "$base.s" -o "$obj"
      ;;
    *.c | *.cpp)
      local lang=("${cxx_flags[@]}")
      [ "${src##*.}" = c ] && lang=("${c_flags[@]}")
      # clang-22's integrated assembler misplaces literal pools in multi-function
      # files: compile to assembly, align every pool, assemble with llvm-mc.
      clang-22 "${lang[@]}" "$@" -S "$src" -o "$base.s" &&
        sed 's/^\t\.literal_position$/&\n\t.p2align\t2/' "$base.s" > "$base.fixed.s" &&
        llvm-mc-22 -triple=xtensa -mattr="$mattr" -filetype=obj "$base.fixed.s" -o "$obj"
      ;;
  esac
}

# build_sdk DIR: compiles every sdk/src/**/*.{c,cpp,S} into DIR/libq7sdk.a.
build_sdk() {
  local dir=$1 objs=() src rel obj
  mkdir -p "$dir/obj"
  while IFS= read -r src; do
    rel=${src#"$sdk/src/"}
    obj="$dir/obj/$(echo "$rel" | tr '/' '_').o"
    if compile "$src" "$obj" "${warnings[@]}"; then
      objs+=("$obj")
    else
      fail "compile $rel"
    fi
  done < <(find "$sdk/src" -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.S' \) | sort)
  rm -f "$dir/libq7sdk.a"
  xtensa-lx106-elf-ar rcs "$dir/libq7sdk.a" "${objs[@]}"
  echo "$dir/libq7sdk.a: ${#objs[@]} objects"
}

# --- 1. the SDK archive ---
build_sdk "$work"

# --- 2. the LSPs ---
q7=${Q7:-$root/target/debug/q7}
[ -x "$q7" ] || (cd "$root" && cargo build -q -p q7)
"$q7" lsp --out "$work/lsp" >/dev/null
lsp="$work/lsp/lsp_fll_load_cpu0/ldscripts/elf32xtensa.x"
# sdk/ABI.md symbols, for LSPs generated before they were added.
defsyms=()
grep -q '__q7_launch' "$lsp" || defsyms+=(--defsym=__q7_launch=0x841ff000 --defsym=__stack=0x841ff000)

# --- 3. the operators ---
link_op() { # name objs...
  local name=$1
  shift
  local log="$work/$name.link.log"
  if xtensa-lx106-elf-ld -q --no-warn-rwx-segments -z max-page-size=4 -z common-page-size=4 -T "$lsp" \
    "${defsyms[@]}" "$@" "$work/libq7sdk.a" -o "$work/$name.so" 2> "$log"; then
    echo "link $name: ok ($(stat -c %s "$work/$name.so") bytes)"
  else
    fail "link $name"
    grep -o "undefined reference to \`[^']*'" "$log" | sort | uniq -c | sed 's/^/    /' >&2 || true
    grep -v 'undefined reference' "$log" | head -20 | sed 's/^/    /' >&2 || true
  fi
}

mkdir -p "$work/ops"
for src in "$here"/ops/*.cpp; do
  name=$(basename "$src" .cpp)
  [ "$name" = wrapper ] && continue
  compile "$src" "$work/ops/$name.o" -Wall -Werror || fail "compile ops/$name.cpp"
done
compile "$here/ops/wrapper.cpp" "$work/ops/wrapper.o" -Wall -Werror || fail "compile ops/wrapper.cpp"
for obj in "$work"/ops/*.o; do
  name=$(basename "$obj" .o)
  [ "$name" = wrapper ] && continue
  # An op that carries its own dispatch table links alone; the others
  # (relu_forward) link with the stand-in wrapper.
  if grep -q 'get_func_cnt' "$here/ops/$name.cpp"; then
    link_op "$name" "$obj"
  else
    link_op "$name" "$obj" "$work/ops/wrapper.o"
  fi
done

# --- 4. QEMU self-test (skipped without qemu-system-xtensa) ---
# selftest.elf prints through the SDK what portable_prints.c prints through
# glibc on the host, then checks start-up and the stack switch.
# QEMU's de233_fpu core lacks MUL32_HIGH (MULUH/MULSH), so the self-test
# builds its own archive without that option.
if command -v qemu-system-xtensa >/dev/null 2>&1; then
  q="$work/qemu"
  mkdir -p "$q"
  use_features windowed density loop mul16 mul32 div32 nsa minmax sext clamps bool fp prid
  build_sdk "$q"
  # The harness's exception vectors use exception-option registers.
  if extra_mattr=,+exception compile "$here/qemu/vectors.S" "$q/vectors.o" &&
    compile "$here/qemu/portable_prints.c" "$q/portable_prints.o" -Wall -Werror &&
    compile "$here/qemu/selftest.cpp" "$q/selftest.o" -Wall -Werror &&
    xtensa-lx106-elf-ld --no-warn-rwx-segments -z max-page-size=4 -z common-page-size=4 -T "$here/qemu/qemu.ld" \
      "$q/vectors.o" "$q/selftest.o" "$q/portable_prints.o" "$q/libq7sdk.a" -o "$q/selftest.elf"; then
    set +e
    # Semihosting output goes to the serial console, here stdout.
    timeout 120 qemu-system-xtensa -M sim -cpu de233_fpu -semihosting -nographic -monitor none \
      -kernel "$q/selftest.elf" > "$q/device.out" 2> "$q/qemu.err"
    qemu_status=$?
    set -e
    cc -O2 -std=gnu11 -DQ7_HOST_TEST -ffp-contract=off -fno-builtin -frounding-math -w \
      "$here/qemu/portable_prints.c" "$here/qemu/host_main.c" "$sdk"/src/builtins/*.c "$sdk"/src/math/*.c -lm \
      -o "$q/host_prints"
    { "$q/host_prints"; echo "on heap stack: yes"; echo "selftest: ok"; } > "$q/expected.out"
    if [ "$qemu_status" -ne 0 ]; then
      fail "QEMU self-test exited with status $qemu_status (see $q/device.out, $q/qemu.err)"
    elif ! diff -u "$q/expected.out" "$q/device.out" > "$q/diff.out"; then
      fail "QEMU self-test output differs from the host's:"
      head -40 "$q/diff.out" >&2
    else
      echo "qemu self-test: ok ($(wc -l < "$q/device.out") lines identical to the host's)"
    fi
  else
    fail "build of the QEMU self-test"
  fi

  # run_qemu NAME OBJS...: links OBJS into NAME.elf and runs it; the program's
  # exit status must be 0 and its last line is shown.
  run_qemu() {
    local name=$1
    shift
    if ! xtensa-lx106-elf-ld --no-warn-rwx-segments -z max-page-size=4 -z common-page-size=4 \
      -T "$here/qemu/qemu.ld" "$q/vectors.o" "$@" "$q/libq7sdk.a" -o "$q/$name.elf" 2> "$q/$name.link.log"; then
      fail "link $name (see $q/$name.link.log)"
      return
    fi
    set +e
    timeout 120 qemu-system-xtensa -M sim -cpu de233_fpu -semihosting -nographic -monitor none \
      -kernel "$q/$name.elf" > "$q/$name.out" 2>&1
    local status=$?
    set -e
    if [ "$status" -ne 0 ]; then
      fail "qemu $name: exit status $status"
      tail -5 "$q/$name.out" >&2
    else
      echo "qemu $name: $(tail -1 "$q/$name.out")"
    fi
  }
  # The documented operators through the real runtime path (q7_main, the
  # customop_* calls, the stack switch), then the torch API self-checks.
  if compile "$here/qemu/optest.cpp" "$q/optest.o" -Wall -Werror -I "$here/qemu" &&
    compile "$here/qemu/api_selftest.cpp" "$q/api_selftest.o" -Wall -Werror -I "$here/qemu"; then
    for src in "$here"/ops/relu_*.cpp; do
      name=$(basename "$src" .cpp)
      if compile "$src" "$q/$name.o" -Wall -Werror; then
        run_qemu "$name" "$q/optest.o" "$q/$name.o"
      else
        fail "compile ops/$name.cpp (QEMU profile)"
      fi
    done
    run_qemu api_selftest "$q/api_selftest.o"
  else
    fail "build of the QEMU operator tests"
  fi
else
  echo "qemu self-test: skipped (no qemu-system-xtensa)"
fi

if [ "$failures" -ne 0 ]; then
  echo "check.sh: $failures failure(s)" >&2
  exit 1
fi
echo "check.sh: all ok"
