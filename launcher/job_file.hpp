// The job file (GAPTRAIN_JOB_FILE): what every worker of the job reads to follow its resizes,
// rewritten atomically by the launcher on every change. JSON, e.g.
//   {"job_id":42,"generation":3,"nodes":["n1","n2"],"leaving":["n3"],
//    "notice":{"n2":1764300060.5},"min_nodes":1,"max_nodes":4,
//    "batch":{"tuned":128,"global":1536,"per_node":256,"accumulation":2,"lr_gain":2.75}}
// nodes: those the training should use now, batch host first; leaving: those being given back
// (their workers leave at the end of their step); notice: nodes that will be taken at about that
// Unix time; batch (only for a job submitted with a batch range, --elastic-batch): the global
// batch to train at on `nodes`, each node's micro-batch, the micro-steps per step (gradient
// accumulation), the learning rate's gain (AdaScale) and the tuned batch M0. The generation grows
// by one with every change. The Python helper (python/gaptrain/jobfile.py) is its reader;
// docs/job-side.md the contract.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gaptrain/protocol.hpp"

namespace gaptrain::launch {

struct JobFileView {
  std::uint32_t job_id = 0;
  std::uint64_t generation = 0;
  std::vector<std::string> nodes;
  std::vector<std::string> leaving;
  std::map<std::string, double> notice;
  int min_nodes = 1;
  int max_nodes = 1;
  std::optional<protocol::InstructedBatch> batch;

  // What the workers see changed (the generation aside).
  bool same_content(const JobFileView& other) const {
    return nodes == other.nodes && leaving == other.leaving && notice == other.notice &&
           min_nodes == other.min_nodes && max_nodes == other.max_nodes && batch == other.batch;
  }
};

std::string job_file_text(const JobFileView& view);

}  // namespace gaptrain::launch
