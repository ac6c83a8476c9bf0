#include "core/launch_instruction.hpp"

#include <algorithm>

#include "gaptrain/goodput.hpp"

namespace gaptrain::core {

std::optional<protocol::InstructedBatch> instructed_batch(const ElasticJob& job, int nodes) {
  const std::optional<NoiseScale> phi = noise_scale_of(job);
  if (!job.given.batch || !phi) return std::nullopt;
  // The curve was measured (or is assumed) at the job's usual per-node batch: its tuned batch
  // over its fewest nodes, as the allocator's goodput curve reads it (allocation.hpp).
  const int min_nodes = std::max(1, job.given.min_nodes);
  const int per_node_batch = (job.given.batch->tuned + min_nodes - 1) / min_nodes;
  const StepTimeModel model = StepTimeModel::from_curve(job.curve, per_node_batch);
  const BatchChoice choice = choose_batch(model, *job.given.batch, min_nodes, phi->value,
                                          std::max(1, nodes), BatchRule::adaptive);
  return protocol::InstructedBatch{job.given.batch->tuned, choice.global, choice.per_node,
                                   choice.accumulation, choice.lr_gain};
}

protocol::LaunchInstruction launch_instruction(const ElasticJob& job,
                                               std::vector<std::string> drain,
                                               const std::map<std::string, double>& notice) {
  protocol::LaunchInstruction instruction;
  instruction.nodes = job.nodes;
  instruction.drain = std::move(drain);
  instruction.allocations = job.satellites;
  instruction.home = job.at_home;
  const auto holds = [&job](const std::string& node) {
    return std::find(job.nodes.begin(), job.nodes.end(), node) != job.nodes.end();
  };
  for (const auto& [node, at] : notice) {
    if (holds(node)) instruction.notice[node] = at;
  }
  const auto kept = std::count_if(job.nodes.begin(), job.nodes.end(), [&](const std::string& n) {
    return std::find(instruction.drain.begin(), instruction.drain.end(), n) ==
           instruction.drain.end();
  });
  instruction.batch = instructed_batch(job, static_cast<int>(kept));
  return instruction;
}

}  // namespace gaptrain::core
