#!/usr/bin/env bash
# Installs every Debian package that pstrain's build, tests, benchmarks and demo need.
# Idempotent: when every package is already installed it does nothing (no apt-get update either).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev libboost-program-options1.81-dev
  libcrypto++-dev
  libgtest-dev googletest libbenchmark-dev libmpfr-dev
  libclang-14-dev
  sphinxtrain pocketsphinx pocketsphinx-en-us pocketsphinx-testdata sphinxbase-utils
  espeak-ng sox strace time valgrind linux-perf
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  chromium libxml2-utils
  slurm-wlm munge
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
