#!/usr/bin/env bash
# Builds bare test programs for a QEMU sample core with the open toolchain:
#
#   build.sh OUTDIR BOARD [-O LEVEL] PROGRAM.c|PROGRAM.S...   ->   OUTDIR/PROGRAM.BOARD-OLEVEL.elf
#
# BOARD is de212 (windowed, no FPU; reset 0x50000000, RAM and VECBASE at
# 0x60000000) or de233_fpu (windowed + FPU; reset 0xfe000000, VECBASE 0x2000,
# RAM from 0). C goes through clang-22 -S, the literal pools are aligned as
# q7-build's open profile does (`align_literal_pools`: a .p2align 2 after
# each .literal_position), llvm-mc-22 assembles, GNU ld links with board.ld.in
# (and PROGRAM_insns.S, when it exists: that program's instructions under test).
# Extra flags come from CFLAGS (C) and ASFLAGS (assembler), e.g. CFLAGS=-DSORT_ELEMENTS=4096.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
board=$2
shift 2
opt=-O2
if [ "${1:-}" = "-O" ]; then opt=-O$2; shift 2; fi
mkdir -p "$out"

features=(windowed density loop mul16 mul32 div32 nsa minmax sext clamps)
defs=()
case "$board" in
  de212) reset=0x50000000 vecbase=0x60000000 ram=0x60001000 stack=0x68000000 ;;
  de233_fpu)
    reset=0xfe000000 vecbase=0x2000 ram=0x100000 stack=0x8000000
    features+=(bool fp)
    defs=(-DHAVE_CP) ;;
  *) echo "unknown board $board (de212 | de233_fpu)" >&2; exit 2 ;;
esac
mattr=$(printf '+%s,' "${features[@]}")
mattr=${mattr%,}
fflags=()
for f in "${features[@]}"; do fflags+=(-Xclang -target-feature -Xclang "+$f"); done
cflags=(--target=xtensa "$opt" -ffreestanding -fno-builtin -ffunction-sections -fdata-sections
        -isystem "$(clang-22 -print-resource-dir)/include" "${fflags[@]}" "${defs[@]}")
tag=$board$opt
work="$out/obj-$tag"
mkdir -p "$work"

asm_obj() { # SRC.S OBJ
  clang-22 --target=xtensa -E -x assembler-with-cpp "${defs[@]}" ${ASFLAGS:-} "$1" -o "$2.s"
  llvm-mc-22 -triple=xtensa -mattr="$mattr,+exception,+miscsr,+s32c1i,+mac16,+interrupt,+highpriinterrupts,+highpriinterrupts-level7,+timers3,+debug,+prid,+rvector,+regprotect" -filetype=obj "$2.s" -o "$2"
}
c_obj() { # SRC.c OBJ
  clang-22 "${cflags[@]}" ${CFLAGS:-} -S "$1" -o "$2.raw.s"
  sed 's/^\t\.literal_position$/&\n\t.p2align\t2/' "$2.raw.s" > "$2.s"
  llvm-mc-22 -triple=xtensa -mattr="$mattr" -filetype=obj "$2.s" -o "$2"
}

asm_obj "$here/start.S" "$work/start.o"
asm_obj "$here/rt.S" "$work/rt_s.o"
extra=()
if [ "$board" = de233_fpu ]; then
  asm_obj "$here/fp_ops.S" "$work/fp_ops.o"
  extra=("$work/fp_ops.o")
fi
c_obj "$here/rt.c" "$work/rt.o"
sed -e "s/@RESET@/$reset/" -e "s/@VECBASE@/$vecbase/" -e "s/@RAM@/$ram/" -e "s/@STACK@/$stack/" \
  "$here/board.ld.in" > "$work/board.ld"
for src in "$@"; do
  case "$src" in
    *.S) name=$(basename "$src" .S); asm_obj "$src" "$work/$name.o" ;;
    *) name=$(basename "$src" .c); c_obj "$src" "$work/$name.o" ;;
  esac
  # A program's own instructions under test live beside it in NAME_insns.S.
  own=()
  ops="$(dirname "$src")/${name}_insns.S"
  if [ -f "$ops" ]; then asm_obj "$ops" "$work/${name}_insns.o"; own=("$work/${name}_insns.o"); fi
  xtensa-lx106-elf-ld --no-warn-rwx-segments -T "$work/board.ld" \
    "$work/start.o" "$work/rt_s.o" "$work/rt.o" "${extra[@]}" "${own[@]}" "$work/$name.o" -o "$out/$name.$tag.elf"
  echo "$out/$name.$tag.elf"
done
