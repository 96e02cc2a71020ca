#!/usr/bin/env bash
# Prints trainer/numerics/elementary_constants.h (see scripts/gen/elementary_constants.cpp).
# Needs libmpfr-dev (installed by scripts/bootstrap.sh).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -std=c++20 -O1 -o "$tmp/gen" gen/elementary_constants.cpp -lmpfr -lgmp
"$tmp/gen"
