// A scaling curve as every JSON document that carries one spells it: [[nodes, samples_per_s],
// ...] (the registration, the solve JSON, the state file, `gaptrain status --json`).
#pragma once

#include <json/value.h>

#include <string>
#include <vector>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain {

// [[nodes, samples_per_s], ...], fewest nodes first.
Json::Value curve_to_json(const ScalingCurve& curve);

// The points of such an array (`array` is one), each a [nodes, samples_per_s] pair: otherwise
// InputError("FIELD[i]", "expected a [nodes, samples_per_s] pair, got ...") or one naming
// FIELD[i][0] or FIELD[i][1]. The curve's rule (ScalingCurve) is the caller's to apply, with
// what else it bounds.
std::vector<ScalingCurve::Point> curve_points_from_json(const Json::Value& array,
                                                        const std::string& field);

}  // namespace gaptrain
