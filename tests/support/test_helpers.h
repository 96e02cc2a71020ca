// Small helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

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

}  // namespace pstrain::test
