// A scaling curve as every JSON document that carries one spells it: [[nodes, samples_per_s],
// ...] (the registration, the solve JSON, the state file, `gaptrain status --json`).
#pragma once

#include <json/value.h>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain {

// [[nodes, samples_per_s], ...], fewest nodes first.
Json::Value curve_to_json(const ScalingCurve& curve);

}  // namespace gaptrain
