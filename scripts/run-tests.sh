#!/usr/bin/env bash
# The whole default test suite on a fresh machine: install dependencies, build, run every test
# (unit + integration, which includes building the default corpus and comparing with SphinxTrain).
# Long runs are labelled `nightly` and excluded here (run them with scripts/nightly.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
bash scripts/bootstrap.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" -LE nightly
