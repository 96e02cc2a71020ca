// Small helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "accumulators/accumulators.h"
#include "common/error.h"

namespace pstrain::test {

// Runs `fn`, expects an `Error` (e.g. pstrain::audit::AuditError) and returns its message (empty,
// with a test failure, when it returns; another exception escapes and fails the test).
template <typename Error, typename Fn>
std::string ErrorMessage(Fn&& fn) {
  try {
    fn();
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return {};
}

// Runs `fn`, expects an InputError and returns its message (empty, with a test failure, otherwise).
template <typename Fn>
std::string InputErrorMessage(Fn&& fn) {
  return ErrorMessage<InputError>(fn);
}

// Success when every statistic of `got` and `want` (mixture-weight and occupancy counts, means,
// variances, transitions) has the same bits; otherwise names the first array that differs.
inline ::testing::AssertionResult SameStatisticsBits(const Accumulators& got, const Accumulators& want) {
  const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  if (!same(got.mixw_data(), want.mixw_data())) return ::testing::AssertionFailure() << "mixture-weight counts differ";
  if (!same(got.dnom_data(), want.dnom_data())) return ::testing::AssertionFailure() << "occupancy counts differ";
  if (!same(got.mean_data(), want.mean_data())) return ::testing::AssertionFailure() << "mean sums differ";
  if (!same(got.var_data(), want.var_data())) return ::testing::AssertionFailure() << "variance sums differ";
  if (!same(got.tmat_data(), want.tmat_data())) return ::testing::AssertionFailure() << "transition counts differ";
  return ::testing::AssertionSuccess();
}

}  // namespace pstrain::test
