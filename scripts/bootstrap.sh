#!/usr/bin/env bash
# Installs, from Debian's packages, what q7's open profile and its tests use.
# Idempotent: skips what is present and says what it does.
set -euo pipefail

# tool on PATH -> Debian package that provides it
tools=(
  "clang-22:clang-22"
  "llvm-mc-22:llvm-22"
  "llc-22:llvm-22"
  "llvm-cxxfilt-22:llvm-22"
  "clang++-22:clang-22"
  "llvm-objdump-22:llvm-22"
  "xtensa-lx106-elf-ld:binutils-xtensa-lx106"
  "xtensa-lx106-elf-readelf:binutils-xtensa-lx106"
  "xtensa-lx106-elf-g++:gcc-xtensa-lx106"
  "qemu-system-xtensa:qemu-system-misc"
  "cc:gcc"
  "python3:python3"
  "chromium:chromium"
  "csmith:csmith"
  "creduce:creduce"
  "tmux:tmux"
  "valgrind:valgrind"
)

missing=()
for entry in "${tools[@]}"; do
  tool=${entry%%:*}
  pkg=${entry#*:}
  if command -v "$tool" >/dev/null 2>&1; then
    echo "bootstrap: $tool present"
  else
    echo "bootstrap: $tool missing (package $pkg)"
    [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
  fi
done

# Debian packages with no single tool to look for: the PyTorch front end
# (python/q7) builds shape libraries against Debian's CPU-only torch for
# /usr/bin/python3 (torch/torch.h pulls in pybind11 under cpp_extension) and
# builds the q7 package into a venv of that interpreter.
# libclang-rt-22-dev: clang-22's sanitizer runtimes (ASan, UBSan, MSan) for
# `q7 run --native`. libcsmith-dev: the csmith runtime headers
# scripts/csmith-diff.sh builds with.
for pkg in libclang-rt-22-dev python3-torch libtorch-dev python3-dev python3-venv ninja-build pybind11-dev libcsmith-dev; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    echo "bootstrap: $pkg present"
  else
    echo "bootstrap: $pkg missing"
    missing+=("$pkg")
  fi
done

if ! command -v cargo >/dev/null 2>&1; then
  echo "bootstrap: cargo not found: q7 needs a Rust toolchain (rustup or Debian's cargo)" >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: nothing to install"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "bootstrap: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
