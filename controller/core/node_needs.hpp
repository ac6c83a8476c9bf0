// Which nodes a pending regular job can start on, as Slurm will place it: the nodes of its
// partition(s), less those it excludes (-x), those without the features its constraint asks
// for (--constraint), and those of a reservation it is not in (or, in one, those outside it);
// and the nodes it names (-w), which it starts on all of. The reclaims (planner.hpp) take
// exactly these: an idle node the job cannot use does not serve it, and an elastic node it
// names is taken even when it is a batch host (docs/resizing.md, "The plan, in order").
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster.hpp"

namespace gaptrain::core {

struct NodeNeed {
  // The nodes it may start on; nullopt: any node (nothing in the snapshot narrows it).
  std::optional<std::set<std::string>> eligible;
  // The nodes it starts on all of (-w, in Slurm's order); each one eligible.
  std::vector<std::string> required;
  // How many nodes it needs in all: its minimum, at least its required nodes.
  std::size_t count = 1;

  bool allows(const std::string& node) const { return !eligible || eligible->contains(node); }
  bool requires_node(const std::string& node) const;
};

// Whether a node with `features` (Slurm's comma-separated active features, "a100,ib") meets a
// job's `constraint` as sbatch --constraint takes it: "a100", "a100&ib", "a100|v100",
// "[a100|v100]", "(a100|v100)&ib", "!v100", counts ("a100*2": a node of a100 may serve).
// nullopt when the constraint does not read as one (then no node is ruled out by it).
std::optional<bool> meets_constraint(std::string_view constraint, std::string_view features);

// NodeNeed for each pending job of one snapshot, its eligible set worked out once for all the
// jobs that ask the same (most ask only for a partition: on a large machine hundreds of pending
// jobs at every poll).
class NodeNeeds {
 public:
  explicit NodeNeeds(const Snapshot& snapshot) : snapshot_(snapshot) {}
  NodeNeed of(const Job& job);

 private:
  const Snapshot& snapshot_;
  std::map<std::string, std::optional<std::set<std::string>>> eligible_by_ask_;
};

}  // namespace gaptrain::core
