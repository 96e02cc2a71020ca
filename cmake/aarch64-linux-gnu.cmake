# CMake toolchain file: cross-build pstrain for 64-bit ARM Linux (aarch64) on a Debian 12 x86-64
# machine, with Debian's cross compiler (g++-aarch64-linux-gnu) and the arm64 multiarch packages of
# Boost 1.81 and Crypto++ (installed into /usr/lib/aarch64-linux-gnu by `dpkg --add-architecture
# arm64`; scripts/build-aarch64.sh sets all of it up). The result runs under qemu-user:
#   qemu-aarch64 -L / build-aarch64/trainer/pstrain ...
#
# Nothing here touches compile flags: the top-level CMakeLists.txt adds -ffp-contract=off
# -fno-fast-math for every target and refuses fast-math/Ofast, for this toolchain as for the native one.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PSTRAIN_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${PSTRAIN_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${PSTRAIN_CROSS_TRIPLET}-g++)

# Debian multiarch: libraries, CMake package configs and pkg-config files of the arm64 packages live
# in /usr/lib/aarch64-linux-gnu (headers that are the same for every architecture in /usr/include).
set(CMAKE_LIBRARY_ARCHITECTURE ${PSTRAIN_CROSS_TRIPLET})
# Search the cross compiler's own tree and the multiarch tree for libraries, headers and packages,
# never the build machine's programs as target code; host programs (pkg-config, qemu) are found
# normally.
set(CMAKE_FIND_ROOT_PATH /usr/${PSTRAIN_CROSS_TRIPLET} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The x86-64 multiarch directories must never satisfy a search for target code.
list(APPEND CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake /usr/include/x86_64-linux-gnu)

# pkg-config (Crypto++ has no CMake config): only the arm64 .pc files, plus the
# architecture-independent ones. Set here so that every configure run (and try_compile) sees it.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${PSTRAIN_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Target programs (try_run, add_test, a test's COMMAND) run under user-mode emulation, with / as the
# root for the arm64 dynamic loader (/lib/ld-linux-aarch64.so.1) and libraries.
find_program(PSTRAIN_QEMU_AARCH64 qemu-aarch64 NO_CMAKE_FIND_ROOT_PATH)
if(PSTRAIN_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PSTRAIN_QEMU_AARCH64} -L /)
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
endif()
