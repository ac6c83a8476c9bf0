// What elastic jobs are charged for ("a site can adopt it"): node-seconds by
// partition, user and account, the time each managed elastic job held its nodes, satellites
// included (they are charged to the job's account: cluster.hpp). Pure: the caller reads the
// clock; gaptraind adds the result to gaptrain_elastic_node_seconds_total (metrics.hpp).
#pragma once

#include <compare>
#include <cstddef>
#include <map>
#include <string>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"

namespace gaptrain::core {

// Whom elastic use is charged to; a part Slurm did not tell is empty.
struct UsageOwner {
  std::string partition;
  std::string user;
  std::string account;

  friend auto operator<=>(const UsageOwner&, const UsageOwner&) = default;
};

using NodesByOwner = std::map<UsageOwner, std::size_t>;
using NodeSecondsByOwner = std::map<UsageOwner, double>;

// The nodes the managed elastic jobs hold now, by owner: the partition and account Slurm shows
// for each job (`elastic_partition` and no account for a job the snapshot lacks), its user.
NodesByOwner elastic_nodes_by_owner(const ElasticJobs& elastic, const Snapshot& snapshot,
                                    const std::string& elastic_partition);

// Node-seconds between updates. What gaptraind changes (grows, shrinks, releases) it changes at
// an update, so the nodes held at one update are held until the next: each interval is charged
// at the holding seen at its start.
class NodeSecondsMeter {
 public:
  // What each owner used since the last call, for `now_s` (seconds on a clock that does not
  // jump: CLOCK_MONOTONIC); `held` is the holding from now on. The first call starts the
  // meter and charges nothing; a clock that went back charges nothing either.
  NodeSecondsByOwner advance(double now_s, NodesByOwner held);

 private:
  bool started_ = false;
  double last_s_ = 0.0;
  NodesByOwner held_;
};

}  // namespace gaptrain::core
