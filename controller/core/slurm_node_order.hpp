// Which idle nodes an elastic job takes, so that the regular workload lands where it would
// without it. Slurm offers idle nodes to a regular job by node weight (lowest first), then in
// slurm.conf's order (select/cons_tres best-fits consecutive runs of them), and only preempts
// a satellite when the idle nodes do not fit the job (cons_tres _run_now). A satellite on a node
// Slurm would have offered first moves the next regular job onto other nodes; from there
// backfill plans around a different layout and some regular job waits tens of seconds longer
// (docs/benchmarks.md, "Zero impact": a 1-node job backfilled 70 s early, an 8-node job 39 s
// late). So elastic jobs grow into the nodes Slurm offers last and, shrinking or reclaimed for a
// regular job, give back the ones it offers first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.hpp"

namespace gaptrain::core {

class SlurmNodeOrder {
 public:
  explicit SlurmNodeOrder(const Snapshot& snapshot);

  // `nodes`, the ones Slurm offers a regular job last first: highest weight, then latest in
  // slurm.conf. A node the snapshot does not know goes last, in its given order.
  [[nodiscard]] std::vector<std::string> last_offered_first(std::vector<std::string> nodes) const;
  // `nodes` in the order Slurm offers them (a reclaim gives those first); unknown ones last.
  [[nodiscard]] std::vector<std::string> first_offered_first(std::vector<std::string> nodes) const;

 private:
  // The known nodes by rank (descending with `last_first`), then the unknown ones as given.
  [[nodiscard]] std::vector<std::string> in_order(std::vector<std::string> nodes,
                                                  bool last_first) const;
  // (weight, position in the snapshot) of every node: the order Slurm offers them in.
  std::map<std::string, std::pair<std::uint32_t, std::size_t>> rank_;
};

}  // namespace gaptrain::core
