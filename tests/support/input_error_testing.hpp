// Test helper: catching the InputError a call must throw, to assert on its field and message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "gaptrain/input_error.hpp"

namespace gaptrain::testing {

// Runs `call`, which must throw InputError, and returns the error; a test failure (and an empty
// error) when it throws nothing.
template <typename Call>
InputError input_error_from(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError, none was thrown";
  return InputError("", "");
}

}  // namespace gaptrain::testing
