# Script mode (cmake -DFLAGS=... -P cmake/check-determinism-flags.cmake): runs
# pstrain_require_deterministic_flags on FLAGS, as the configuration does on CMAKE_CXX_FLAGS; exits
# non-zero with its message when FLAGS would be refused. For scripts/check-determinism-flags.sh.
include(${CMAKE_CURRENT_LIST_DIR}/DeterminismFlags.cmake)
set(CMAKE_CXX_FLAGS "${FLAGS}")
pstrain_require_deterministic_flags(CMAKE_CXX_FLAGS)
