#include "gaptrain/scaling_curve_json.hpp"

#include <json/value.h>

#include <string>

#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"

namespace gaptrain {

Json::Value curve_to_json(const ScalingCurve& curve) {
  Json::Value points(Json::arrayValue);
  for (const ScalingCurve::Point& p : curve.points()) {
    Json::Value& point = points.append(Json::Value(Json::arrayValue));
    point.append(p.nodes);
    point.append(p.samples_per_s);  // finite and > 0: the curve's rule
  }
  return points;
}

std::vector<ScalingCurve::Point> curve_points_from_json(const Json::Value& array,
                                                        const std::string& field) {
  std::vector<ScalingCurve::Point> points;
  points.reserve(array.size());
  for (Json::ArrayIndex i = 0; i < array.size(); ++i) {
    const std::string point = field + "[" + std::to_string(i) + "]";
    const Json::Value& pair = array[i];
    if (!pair.isArray() || pair.size() != 2) {
      const std::string got =
          pair.isArray() ? "an array of " + std::to_string(pair.size()) : describe_json(pair);
      throw InputError(point, "expected a [nodes, samples_per_s] pair, got " + got);
    }
    points.push_back({json_int(pair[0], point + "[0]"), json_number(pair[1], point + "[1]")});
  }
  return points;
}

}  // namespace gaptrain
