#!/usr/bin/env bash
# The trust campaign of issue #26, black-box against the release `q7` and the
# Python package of this checkout: issue #26's reproductions, then a few
# thousand seeded runs on mutated inputs (.npy, ELF images, ar archives and
# metadata.json, q7.toml, flag values, output paths that are devices, FIFOs,
# links and directories, option-like source names, signals at random points)
# and about a hundred Python scenarios. Opt-in: scripts/test.sh does not run it.
#
#   scripts/trust-campaign.sh [--seed N] [--scale F] [--jobs N] [--only NAME,...] [--keep] [--no-python]
#
# Each run is judged on: exit status, panics or signal deaths, a one-line
# error naming the file, files changed outside its scratch directory (a
# sentinel tree with a character device, a FIFO, links and a read-only file;
# the shared corpus; /dev/null's type), processes left behind, temporaries
# left, and time (a hang is 60 s). It prints per-category totals and
# "N runs, M clean", writes target/trust-campaign/failures.txt with a
# reproducer per failure, and exits 1 when any run failed. Run it as root
# (as CI does) for the device cases. About 25 minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -p q7 --quiet

if [[ " $* " != *" --no-python "* ]]; then
  scripts/python-env.sh >/dev/null
fi
exec /usr/bin/python3 scripts/trust_campaign --q7 "$CARGO_TARGET_DIR/release/q7" --python "$PWD/.venv/bin/python" \
  --work "$CARGO_TARGET_DIR/trust-campaign" "$@"
