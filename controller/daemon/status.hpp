// The daemon's answer to `gaptrain status`: the live view as one JSON object (the contract
// `gaptrain status --json` prints and scripts read):
//
//   {"holes":[{"node":"n1","since":EPOCH,"predicted_end":EPOCH|null,"next_job":ID|null,
//              "reservation":NAME|null}],
//    "nodes":[{"name":"n1","state":"idle","jobs":[ID,...]}],
//    "elastic_jobs":[{"job_id":ID,"user":"u","partition":"elastic","nodes":["n1"],
//                     "batch_host":"n1","min_nodes":1,"max_nodes":4,
//                     "allowed_sizes":[1,2,4] (only when some counts are),
//                     "curve":{"source":"given"|"assumed"|"learned","points":[[n,s],...]},
//                     "costs_source":"given"|"assumed"|"learned","up_cost_s":S,"down_cost_s":S,
//                     "running":["n1",...],"satellites":{"n3":ID,...},
//                     "samples_done":N|null,"reported_at":EPOCH|null,
//                     "batch":{"tuned":M0,"max":MAX,"max_per_node":P}|null,
//                     "noise_scale":PHI|null,
//                     "noise_scale_source":"given"|"assumed"|"learned"|null}],
//    "events":{"accepted":N,"rejected":N},
//    "queue":[{"job_id":ID,"reason":"..."}],   (held jobs not admitted yet, in queue order)
//    "last_poll":EPOCH|null,
//    "actions":{...}}   (gaptraind adds it: resizer.hpp actions_json)
//
// Pure: plain values in, a Json::Value out.
#pragma once

#include <json/value.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"

namespace gaptrain::daemon {

struct EventCounts {
  std::uint64_t accepted = 0;
  std::uint64_t rejected = 0;
};

Json::Value status_json(const core::Snapshot& snapshot, const std::vector<core::Hole>& holes,
                        const core::ElasticJobs& elastic, const EventCounts& events,
                        std::optional<std::int64_t> last_poll);

// The held jobs the queue policy does not admit yet (CycleOutcome::waiting), each with why;
// with `only_uid`, those of that user only (a user sees why their own jobs wait).
Json::Value queue_json(const std::vector<std::pair<std::uint32_t, std::string>>& waiting,
                       const core::Snapshot& snapshot, std::optional<std::uint32_t> only_uid);

}  // namespace gaptrain::daemon
