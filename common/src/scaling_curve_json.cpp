#include "gaptrain/scaling_curve_json.hpp"

#include <json/value.h>

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

}  // namespace gaptrain
