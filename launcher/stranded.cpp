#include "stranded.hpp"

#include <algorithm>

namespace gaptrain::launch {

std::vector<std::string> StrandedWatch::check(const std::vector<RunningStep>& running,
                                              std::optional<int> world_size,
                                              std::optional<double> samples,
                                              Clock::time_point now) {
  const int held = static_cast<int>(running.size()) * workers_per_node_;
  if (!world_size || !samples || *world_size >= held) {
    since_.reset();
    return {};
  }
  if (!since_) {
    since_ = now;
    samples_at_since_ = *samples;
    return {};
  }
  if (now - *since_ < patience_ || *samples <= samples_at_since_) return {};
  std::vector<RunningStep> candidates;
  for (const RunningStep& step : running) {
    if (step.node != batch_host_) candidates.push_back(step);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const RunningStep& a, const RunningStep& b) { return a.started_at > b.started_at; });
  const int idle_nodes = (held - *world_size + workers_per_node_ - 1) / workers_per_node_;
  std::vector<std::string> restart;
  for (const RunningStep& step : candidates) {
    if (static_cast<int>(restart.size()) >= idle_nodes) break;
    restart.push_back(step.node);
  }
  since_.reset();  // give the restarted steps a whole patience to join
  return restart;
}

}  // namespace gaptrain::launch
