// Small helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace pstrain::test {

// Runs `fn`, expects an InputError and returns its message (empty, with a test failure, otherwise).
template <typename Fn>
std::string InputErrorMessage(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

}  // namespace pstrain::test
