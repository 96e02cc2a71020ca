#!/usr/bin/env bash
# Cross-builds pstrain for aarch64 into build-aarch64/ with Debian 12's cross
# compiler and the arm64 multiarch packages of Boost 1.81 and Crypto++, and checks that the result
# runs under qemu-user (docs/aarch64.md):
#
#   scripts/build-aarch64.sh [CMAKE-CONFIGURE-ARGS...]
#   qemu-aarch64 -L / build-aarch64/trainer/pstrain --help
#
# Sets up everything it needs, as root (or through sudo): `dpkg --add-architecture arm64` and the
# Debian packages below. Idempotent: with everything installed it runs no apt command at all, and
# `apt-get update` runs only when a package is missing. Only Debian packages are used.
# Arguments are passed to the CMake configure step (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
# BUILD_DIR (default build-aarch64) changes the build directory.
#
# Exit status: 0 built and runs under qemu; 1 set-up or build failed (the message says which step).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-aarch64}
TOOLCHAIN=$PWD/cmake/aarch64-linux-gnu.cmake

fail() {
  echo "build-aarch64: FAILED: $*" >&2
  exit 1
}
trap 'fail "command failed (exit $?) at line $LINENO: $BASH_COMMAND"' ERR

# Build machine tools, then the target (arm64) libraries: Boost 1.81 (json, filesystem,
# program_options and the headers, which also bring Boost.Process) and Crypto++. libc6-dev and
# libstdc++ for arm64 come with the cross compiler (in /usr/aarch64-linux-gnu) and, as runtime
# libraries for qemu -L /, with the arm64 packages (libc6:arm64, libstdc++6:arm64).
HOST_PACKAGES=(g++-aarch64-linux-gnu qemu-user cmake make pkg-config file)
TARGET_PACKAGES=(libboost1.81-dev:arm64 libboost-json1.81-dev:arm64 libboost-filesystem1.81-dev:arm64
                 libboost-program-options1.81-dev:arm64 libcrypto++-dev:arm64)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo > /dev/null || fail "not root and no sudo: cannot add the arm64 architecture or install packages"
  SUDO="sudo"
fi

[ "$(dpkg --print-architecture)" = amd64 ] || fail "this script cross-builds from an amd64 (x86-64) Debian machine; this one is $(dpkg --print-architecture)"

need_update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "build-aarch64: dpkg --add-architecture arm64"
  $SUDO dpkg --add-architecture arm64 || fail "dpkg --add-architecture arm64 failed"
  need_update=1
fi

missing=()
for pkg in "${HOST_PACKAGES[@]}" "${TARGET_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "build-aarch64: all ${#HOST_PACKAGES[@]} host and ${#TARGET_PACKAGES[@]} arm64 packages already installed"
else
  need_update=1
  echo "build-aarch64: installing ${missing[*]}"
fi

if [ "$need_update" -eq 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  # A source that cannot serve arm64 (or is unreachable) makes apt-get update exit non-zero while
  # Debian's own arm64 lists are fetched; whether the packages can be had is decided by the
  # install below, which fails loudly.
  update_rc=0
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || update_rc=$?
  [ "$update_rc" -eq 0 ] || echo "build-aarch64: warning: apt-get update exited $update_rc (see above); trying the install anyway" >&2
  if [ ${#missing[@]} -gt 0 ]; then
    # --no-remove: never remove a package of the build machine to make room for an arm64 one.
    $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends --no-remove "${missing[@]}" ||
      fail "apt-get install ${missing[*]} failed (apt-get update exited $update_rc)"
  fi
  for pkg in "${HOST_PACKAGES[@]}" "${TARGET_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed" || fail "$pkg is still not installed"
  done
fi

command -v aarch64-linux-gnu-g++ > /dev/null || fail "aarch64-linux-gnu-g++ not found after installing g++-aarch64-linux-gnu"
command -v qemu-aarch64 > /dev/null || fail "qemu-aarch64 not found after installing qemu-user"
[ -e /lib/ld-linux-aarch64.so.1 ] || fail "/lib/ld-linux-aarch64.so.1 (libc6:arm64) missing: qemu-aarch64 -L / cannot run arm64 programs"

echo "build-aarch64: configuring $BUILD_DIR ($TOOLCHAIN)"
# Shared Boost and Crypto++ (-DPSTRAIN_STATIC_LIBS=OFF), as this check was verified with: linking
# the arm64 archives statically has not been tried.
cmake --no-warn-unused-cli -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DPSTRAIN_BUILD_TESTS=OFF -DPSTRAIN_BUILD_BENCH=OFF -DPSTRAIN_STATIC_LIBS=OFF "$@" || fail "cmake configure of $BUILD_DIR failed (output above)"

# Not the auditor: `audit scope` links libclang, and Debian 12's libclang1-14:arm64 cannot be
# installed beside the build machine's libclang1-14 (apt wants to remove packages for it), so an
# arm64 audit would link the amd64 libclang and fail. The byte check needs pstrain only.
echo "build-aarch64: building pstrain"
cmake --build "$BUILD_DIR" -j"$(nproc)" --target pstrain || fail "cmake --build $BUILD_DIR failed"

# The binaries must be arm64 code that runs under emulation; the floating-point flags must be the
# project's (a toolchain or cache entry that dropped them would change the numbers silently).
for bin in "$BUILD_DIR/trainer/pstrain"; do
  file -b "$bin" | grep -q 'ARM aarch64' || fail "$bin is not an aarch64 executable: $(file -b "$bin")"
  qemu-aarch64 -L / "$bin" --help > /dev/null || fail "$bin does not run under qemu-aarch64 -L /"
done
grep -q -- '-ffp-contract=off' "$BUILD_DIR/compile_commands.json" || fail "-ffp-contract=off missing from $BUILD_DIR/compile_commands.json"
if grep -qE -- '-ffast-math|-Ofast' "$BUILD_DIR/compile_commands.json"; then
  fail "fast-math/Ofast in $BUILD_DIR/compile_commands.json"
fi
echo "build-aarch64: ok: $BUILD_DIR/trainer/pstrain ($(aarch64-linux-gnu-g++ -dumpfullversion), run with qemu-aarch64 -L /)"
