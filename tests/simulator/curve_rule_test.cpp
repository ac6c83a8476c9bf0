// One rule for a scaling curve (scaling_curve.hpp), whatever text it comes in: a registration
// (protocol), a problem for `gaptrain solve` (allocation JSON) and a curves CSV for `gaptrain
// simulate` refuse the same points with the same message. (The plugin's --elastic-curve and
// the state file's learned curves check theirs in tests/common and tests/daemon.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "allocator/allocation_json.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/scaling_curve.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::curve_rule_test {
namespace {

using ::testing::HasSubstr;

// A curve whose second point is `second` (after [1, 10]), as each text form writes it.
struct BadPoint {
  std::string nodes;
  std::string rate;
  std::string message;  // what every form says about it
};

const std::vector<BadPoint>& bad_points() {
  static const std::vector<BadPoint> points = {
      {"2", "0", "samples_per_s must be a finite number > 0 and at most 1e15, got 0"},
      {"2", "-3", "samples_per_s must be a finite number > 0 and at most 1e15, got -3"},
      {"2", "1e300", "samples_per_s must be a finite number > 0 and at most 1e15, got 1e+300"},
      {"1", "20", "node counts must increase, got 1 after 1"},
  };
  return points;
}

std::string error_of(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(CurveRule, EveryTextFormRefusesTheSamePointsWithOneMessage) {
  for (const BadPoint& bad : bad_points()) {
    const std::string pairs = "[[1, 10], [" + bad.nodes + ", " + bad.rate + "]]";
    const std::string registration =
        R"({"v":1,"type":"register","job_id":5,"user":"u","batch_host":"n1","min_nodes":1,)"
        R"("max_nodes":4,"curve":)" +
        pairs + R"(,"up_cost_s":null,"down_cost_s":null})";
    EXPECT_THAT(error_of([&] { protocol::decode(registration); }),
                HasSubstr("curve[1]: " + bad.message))
        << pairs;

    const std::string problem =
        R"({"nodes":[{"name":"n1"}],"jobs":[{"id":"a","min_nodes":1,"max_nodes":2,"curve":)" +
        pairs + R"(,"up_cost_s":1,"down_cost_s":1}]})";
    EXPECT_THAT(error_of([&] { allocator::parse_problem(problem); }),
                HasSubstr("jobs[0].curve[1]: " + bad.message))
        << pairs;

    const std::string csv = "model,nodes,samples_per_s\nm,1,10\nm," + bad.nodes + "," + bad.rate;
    if (bad.nodes != "1") {  // (a repeated node count in a CSV is named as such: the rows sort)
      EXPECT_THAT(error_of([&] { sim::parse_curves(csv, "c.csv"); }),
                  HasSubstr("c.csv:3: " + bad.message))
          << csv;
    }
  }
}

TEST(CurveRule, NaNIsRefusedByTheCurveItself) {
  const std::string message = error_of([] {
    ScalingCurve({{1, 10.0}, {2, std::numeric_limits<double>::quiet_NaN()}});
  });
  EXPECT_THAT(message, HasSubstr("curve[1]: samples_per_s must be a finite number > 0"));
}

TEST(CurveRule, PointProblemIsWhatTheConstructorSays) {
  EXPECT_FALSE(ScalingCurve::point_problem(0, {1, 10.0}));
  EXPECT_EQ(*ScalingCurve::point_problem(2, {2, 10.0}), "node counts must increase, got 2 after 2");
  EXPECT_EQ(error_of([] {
              ScalingCurve({{2, 5.0}, {2, 10.0}});
            }),
            "curve[1]: node counts must increase, got 2 after 2");
}

}  // namespace
}  // namespace gaptrain::curve_rule_test
