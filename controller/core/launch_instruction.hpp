// The daemon's answer to a job's launcher (protocol::LaunchInstruction): the job's nodes, those
// to drain, its satellites, its notices and, for a job with a batch range, the batch
// to train at on the nodes it keeps. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/elastic_jobs.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::core {

// The batch `job` trains at on `nodes` nodes: goodput.hpp choose_batch (adaptive rule) on the
// step-time model of its curve at its tuned per-node batch, at its current noise scale
// (noise_scale_of). Empty for a job without a batch range. A count below 1 is taken as 1.
std::optional<protocol::InstructedBatch> instructed_batch(const ElasticJob& job, int nodes);

// The instruction for `job`: its nodes (batch host first), `drain` (those of them to give
// back), its satellites, the notices for nodes it still holds (`notice`: node -> Unix time;
// the launcher refuses others, and a shrink may have completed since), and the batch for the
// nodes it keeps (those not drained).
protocol::LaunchInstruction launch_instruction(const ElasticJob& job,
                                               std::vector<std::string> drain,
                                               const std::map<std::string, double>& notice);

}  // namespace gaptrain::core
