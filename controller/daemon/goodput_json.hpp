// A job's goodput facts as `gaptrain status --json` and `gaptrain job ID --json` show them:
//   "batch":{"tuned":M0,"max":MAX,"max_per_node":PERNODE}|null,
//   "noise_scale":PHI|null,"noise_scale_source":"given"|"assumed"|"learned"|null
// (null: the job declared no batch range and is valued by its throughput). Pure.
#pragma once

#include <json/value.h>

#include <optional>
#include <string_view>

#include "gaptrain/goodput.hpp"

namespace gaptrain::daemon {

void put_goodput_json(Json::Value& object, const std::optional<BatchRange>& batch,
                      std::optional<double> noise_scale, std::string_view noise_scale_source);

}  // namespace gaptrain::daemon
