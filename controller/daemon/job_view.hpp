// The daemon's answer to `gaptrain job ID` (protocol "job"): one job's history (job_history.hpp)
// as one JSON object, the contract `gaptrain job ID --json` prints and scripts read:
//
//   {"job_id":ID,"user":"u","state":"running"|"ended","ended_at":EPOCH|null,"now":EPOCH,
//    "nodes_over_time":[[unix_s,nodes],...],
//    "resizes":[{"time":unix_s,"kind":"admit"|"grow"|"shrink"|"reclaim"|"requeue",
//                "reason":"...","nodes":["n1",...]}],
//    "progress":[[unix_s,samples_done],...],"world_size":N|null,
//    "throughput":{"samples_per_s":R|null,"recent_samples_per_s":R|null,
//                  "curve_samples_per_s":R|null,"nodes":N},
//    "curve":{"source":"given"|"assumed"|"learned","measured":[[n,rate],...],
//             "assumed":[[n,rate],...]},
//    "batch":{"tuned":M0,"max":MAX,"max_per_node":P}|null,"noise_scale":PHI|null,
//    "noise_scale_source":"given"|"assumed"|"learned"|null,
//    "node_hours":H,"resize_lost_s":S}
//
// Pure: plain values in, a Json::Value out.
#pragma once

#include <json/value.h>

#include "core/job_history.hpp"

namespace gaptrain::daemon {

// The view of `job` at `now` (Unix seconds).
Json::Value job_view_json(const core::JobRecord& job, double now);

}  // namespace gaptrain::daemon
