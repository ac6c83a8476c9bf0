#include "core/home.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "core/job_mark.hpp"

namespace gaptrain::core {

void see_home(Snapshot& snapshot, std::string_view home_partition) {
  if (home_partition.empty()) return;
  std::set<std::string> home_nodes;
  for (const Partition& partition : snapshot.partitions) {
    if (partition.name == home_partition)
      home_nodes.insert(partition.nodes.begin(), partition.nodes.end());
  }
  for (Job& job : snapshot.jobs) {
    if (job.partition != home_partition) continue;
    // Only a job gaptraind moved home (its admission wrote where it trains) is an elastic job at
    // home; anything else there is the site's own business.
    JobMark mark = read_job_mark(job.admin_comment);
    if (mark.trains_in.empty()) continue;
    job.partition = std::move(mark.trains_in);
    job.tres_per_node = std::move(mark.tres_per_node);
    job.at_home = true;
    std::erase_if(job.nodes, [&](const std::string& node) {
      return home_nodes.contains(node) || node == job.batch_host;
    });
  }
  // Never holes, never a regular job's: a home node is not the elastic partition's.
  std::erase_if(snapshot.nodes, [&](const Node& node) { return home_nodes.contains(node.name); });
}

}  // namespace gaptrain::core
