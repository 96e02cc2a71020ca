// The project's own elementary functions. Every computation that feeds a deterministic file uses
// these instead of libm: glibc picks its exp/log implementation by CPU features (an FMA and an SSE2
// build that differ in the last bit on about one input in 1,500), so libm's results depend on the
// machine. These are written only with IEEE-754 binary64 +, -, *, / and bit operations in a fixed
// order, so each result is a function of the input alone on every x86-64 CPU and on aarch64.
// Accuracy (measured against MPFR, tests/trainer/numerics/elementary_numerics_test.cpp,
// docs/numerics.md): below 1 ulp.
#pragma once

namespace pstrain::numerics {

// e^x. +inf above 709.78, 0 below -745.13 (subnormals in between), NaN for NaN.
double Exp(double x);
// The natural logarithm. -inf at 0, +inf at +inf, NaN for negative or NaN input.
double Log(double x);

}  // namespace pstrain::numerics
