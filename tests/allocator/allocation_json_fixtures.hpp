// What the allocation JSON tests share (allocation_json_test.cpp, allocation_json_errors_test.cpp):
// a small valid document to break one thing at a time, and the messages a broken one gets.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <json/json.h>

#include <memory>
#include <string>
#include <string_view>

#include "allocator/allocation_json.hpp"
#include "gaptrain/input_error.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::allocator::json_fixtures {

using ::testing::HasSubstr;
using testing::input_error_from;
using ::testing::Not;
using ::testing::StartsWith;

// A small valid document; tests break one thing in it at a time.
inline constexpr std::string_view kValid = R"({
  "nodes": [{"name": "n1", "job": "shufflenet", "hole_end_s": 900},
            {"name": "n2"}],
  "jobs": [{"id": "shufflenet", "min_nodes": 1, "max_nodes": 4,
            "curve": [[1, 2831.0], [2, 5259.0], [4, 9988.0]],
            "up_cost_s": 18, "down_cost_s": 12, "batch_host": "n1"},
           {"id": "resnet18", "min_nodes": 2, "max_nodes": 8,
            "curve": [[1, 5218.8], [2, 10582.5]],
            "up_cost_s": 25, "down_cost_s": 15}]
})";

// Parses JSON text with jsoncpp alone, so documents can be built without the code under test.
inline Json::Value json(std::string_view text) {
  Json::CharReaderBuilder builder;
  const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  Json::Value value;
  std::string errors;
  if (!reader->parse(text.data(), text.data() + text.size(), &value, &errors)) {
    ADD_FAILURE() << "test document does not parse: " << errors;
  }
  return value;
}

inline Json::Value valid() {
  return json(kValid);
}

// The message problem_from_json() throws for `document`, which must be rejected.
inline std::string error_for(const Json::Value& document) {
  return input_error_from([&] { problem_from_json(document); }).what();
}

inline std::string error_for_text(std::string_view text) {
  return input_error_from([&] { parse_problem(text); }).what();
}

inline void expect_same_problem(const AllocationProblem& a, const AllocationProblem& b) {
  EXPECT_EQ(a.horizon_s, b.horizon_s);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.fair_p, b.fair_p);
  EXPECT_EQ(a.solver.time_limit_s, b.solver.time_limit_s);
  EXPECT_EQ(a.solver.mip_gap, b.solver.mip_gap);
  EXPECT_EQ(a.solver.max_hole_classes, b.solver.max_hole_classes);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t n = 0; n < a.nodes.size(); ++n) {
    EXPECT_EQ(a.nodes[n].name, b.nodes[n].name) << n;
    EXPECT_EQ(a.nodes[n].job, b.nodes[n].job) << n;
    EXPECT_EQ(a.nodes[n].hole_end_s, b.nodes[n].hole_end_s) << n;
    EXPECT_EQ(a.nodes[n].type, b.nodes[n].type) << n;
  }
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    const AllocatableJob& x = a.jobs[j];
    const AllocatableJob& y = b.jobs[j];
    EXPECT_EQ(x.id, y.id) << j;
    EXPECT_EQ(x.min_nodes, y.min_nodes) << j;
    EXPECT_EQ(x.max_nodes, y.max_nodes) << j;
    ASSERT_EQ(x.curve.points().size(), y.curve.points().size()) << j;
    for (std::size_t i = 0; i < x.curve.points().size(); ++i) {
      EXPECT_EQ(x.curve.points()[i].nodes, y.curve.points()[i].nodes) << j << "," << i;
      EXPECT_EQ(x.curve.points()[i].samples_per_s, y.curve.points()[i].samples_per_s)
          << j << "," << i;
    }
    EXPECT_EQ(x.up_cost_s, y.up_cost_s) << j;
    EXPECT_EQ(x.down_cost_s, y.down_cost_s) << j;
    EXPECT_EQ(x.batch_host, y.batch_host) << j;
    EXPECT_EQ(x.weight, y.weight) << j;
    EXPECT_EQ(x.allowed_sizes, y.allowed_sizes) << j;
    EXPECT_EQ(x.curves, y.curves) << j;
  }
}

}  // namespace gaptrain::allocator::json_fixtures
