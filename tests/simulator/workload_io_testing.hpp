// What the input readers' tests share (workload_io_test.cpp, input_file_test.cpp,
// swf_reader_test.cpp): the shared data's path, and bad inputs with the errors they must give.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::sim::workload_io_testing {

using ::testing::HasSubstr;
using testing::input_error_from;

inline std::string shared_data(const std::string& relative) {
  return std::string(GAPTRAIN_SHARED_DATA_DIR) + "/" + relative;
}

// A bad input and the error it must give.
struct BadInput {
  std::string text;
  std::string field;    // exact
  std::string message;  // a substring of what()
};

template <typename Parse>
void expect_errors(Parse parse, const std::vector<BadInput>& cases) {
  for (const BadInput& bad : cases) {
    SCOPED_TRACE("input:\n" + bad.text);
    const InputError error = input_error_from([&] { parse(bad.text); });
    EXPECT_EQ(error.field(), bad.field);
    EXPECT_THAT(error.what(), HasSubstr(bad.message));
  }
}

}  // namespace gaptrain::sim::workload_io_testing
