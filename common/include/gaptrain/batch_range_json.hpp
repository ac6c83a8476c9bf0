// A batch range (goodput.hpp) as every JSON document that carries one spells it: the solve JSON,
// the registration, the state file, `gaptrain status --json` and `gaptrain job --json`.
#pragma once

#include <json/value.h>

#include "gaptrain/goodput.hpp"

namespace gaptrain {

// {"tuned": M0, "max": MAX, "max_per_node": PERNODE}
Json::Value batch_range_to_json(const BatchRange& range);

}  // namespace gaptrain
