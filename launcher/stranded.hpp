// A training that uses fewer workers than the nodes running its steps wastes the others: under
// torchrun a shrink during a re-rendezvous can leave the job training at world size 2 on 4 nodes
// for the rest of its run (seen in CI). The helper's progress lines carry the world size; this
// watch finds the mismatch from them and says which steps to start again so that they join.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gaptrain::launch {

struct RunningStep {
  std::string node;
  std::chrono::steady_clock::time_point started_at;
};

class StrandedWatch {
 public:
  using Clock = std::chrono::steady_clock;

  StrandedWatch(std::chrono::seconds patience, int workers_per_node, std::string batch_host)
      : patience_(patience),
        workers_per_node_(workers_per_node),
        batch_host_(std::move(batch_host)) {}

  // Called every poll with the running steps and the last progress line's world size and
  // samples. Returns the nodes whose steps to start again: once the training has reported fewer
  // workers than the running steps hold for `patience` while its samples advanced (it is alive,
  // not starting or regrouping), the steps started last, as many as there are workers too few
  // (never the batch host's). Empty otherwise.
  std::vector<std::string> check(const std::vector<RunningStep>& running,
                                 std::optional<int> world_size, std::optional<double> samples,
                                 Clock::time_point now);

 private:
  std::chrono::seconds patience_;
  int workers_per_node_;
  std::string batch_host_;
  std::optional<Clock::time_point> since_;  // when the mismatch was first seen
  double samples_at_since_ = 0.0;
};

}  // namespace gaptrain::launch
