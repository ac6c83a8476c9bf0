#include "core/slurm_node_order.hpp"

#include <algorithm>

namespace gaptrain::core {

SlurmNodeOrder::SlurmNodeOrder(const Snapshot& snapshot) {
  for (std::size_t i = 0; i < snapshot.nodes.size(); ++i) {
    rank_.emplace(snapshot.nodes[i].name, std::pair{snapshot.nodes[i].weight, i});
  }
}

std::vector<std::string> SlurmNodeOrder::last_offered_first(std::vector<std::string> nodes) const {
  return in_order(std::move(nodes), true);
}

std::vector<std::string> SlurmNodeOrder::first_offered_first(std::vector<std::string> nodes) const {
  return in_order(std::move(nodes), false);
}

std::vector<std::string> SlurmNodeOrder::in_order(std::vector<std::string> nodes,
                                                  bool last_first) const {
  const auto known = [&](const std::string& node) { return rank_.contains(node); };
  const auto unknown = std::stable_partition(nodes.begin(), nodes.end(), known);
  std::stable_sort(nodes.begin(), unknown, [&](const std::string& a, const std::string& b) {
    return last_first ? rank_.at(a) > rank_.at(b) : rank_.at(a) < rank_.at(b);
  });
  return nodes;
}

}  // namespace gaptrain::core
