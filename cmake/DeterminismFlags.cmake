# pstrain_require_deterministic_flags(VAR): stops the configuration (FATAL_ERROR) when the compiler
# flags held in the variable named VAR contain -ffast-math, -Ofast or one of -ffast-math's parts:
# each lets the compiler change floating-point results (reassociate sums, drop the sign of a zero
# and so fold the statistics kernel's 0.0 + x into x, assume no NaN or infinity, use approximate
# reciprocals), which breaks the bytes pstrain promises (docs/numerics.md). Included by the top
# CMakeLists.txt for CMAKE_CXX_FLAGS and its build-type variants; scripts/check-determinism-flags.sh
# tests it.
function(pstrain_require_deterministic_flags var_name)
  if("${${var_name}}" MATCHES "fast-math|Ofast|signed-zeros|associative-math|unsafe-math|reciprocal-math|finite-math")
    message(FATAL_ERROR "${var_name} contains fast-math/Ofast or one of its parts (${CMAKE_MATCH_0}), which breaks pstrain's determinism contract")
  endif()
endfunction()
