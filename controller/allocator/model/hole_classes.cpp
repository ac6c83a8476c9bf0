#include "allocator/model/hole_classes.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace gaptrain::allocator {

namespace {

double availability(const AllocatableNode& node, double horizon_s) {
  return node.hole_end_s ? std::min(*node.hole_end_s, horizon_s) : horizon_s;
}

// Maps each distinct availability to the value its group is rounded down to. `finite` holds the
// values below the horizon with their node counts, ascending; `groups` >= 1.
std::map<double, double> group_finite(const std::map<double, int>& finite, int groups) {
  std::map<double, double> rounded;
  if (static_cast<int>(finite.size()) <= groups) {
    for (const auto& [value, count] : finite) rounded[value] = value;
    return rounded;
  }
  int total = 0;
  for (const auto& [value, count] : finite) total += count;
  int closed_groups = 0;
  int seen = 0;
  double group_floor = finite.begin()->first;
  auto remaining_values = static_cast<int>(finite.size());
  for (const auto& [value, count] : finite) {
    // Open a new group once this one holds its share, keeping at least one value per group left.
    const bool share_reached = seen * groups >= (closed_groups + 1) * total;
    const bool values_needed = remaining_values <= groups - closed_groups - 1;
    if (seen > 0 && closed_groups + 1 < groups && (share_reached || values_needed)) {
      ++closed_groups;
      group_floor = value;
    }
    rounded[value] = group_floor;
    seen += count;
    --remaining_values;
  }
  return rounded;
}

// Maps each availability of the nodes of one type to its class's (rounded down) availability.
std::map<double, double> rounding_of_type(const AllocationProblem& problem,
                                          const std::string& type) {
  const double horizon = problem.horizon_s;
  const bool ignore_hole_ends = problem.solver.max_hole_classes <= 1;

  std::map<double, int> finite;  // availability < horizon -> node count
  bool any_at_horizon = false;
  for (const AllocatableNode& node : problem.nodes) {
    if (node.type != type) continue;
    const double a = ignore_hole_ends ? horizon : availability(node, horizon);
    if (a < horizon) {
      ++finite[a];
    } else {
      any_at_horizon = true;
    }
  }
  const int finite_groups = problem.solver.max_hole_classes - (any_at_horizon ? 1 : 0);
  std::map<double, double> rounded = finite.empty()
                                         ? std::map<double, double>{}
                                         : group_finite(finite, std::max(finite_groups, 1));
  if (any_at_horizon) rounded[horizon] = horizon;
  return rounded;
}

}  // namespace

HoleClasses classify_holes(const AllocationProblem& problem) {
  const double horizon = problem.horizon_s;
  const bool ignore_hole_ends = problem.solver.max_hole_classes <= 1;

  HoleClasses classes;
  std::map<std::string, int> type_index;  // ascending names, "" (the default type) first
  for (const AllocatableNode& node : problem.nodes) type_index.emplace(node.type, 0);
  for (auto& [name, index] : type_index) {
    index = static_cast<int>(classes.type_name.size());
    classes.type_name.push_back(name);
  }
  // Each type is grouped on its own (a site's GPU nodes and CPU nodes have unrelated holes), and
  // the classes of all types are ordered by availability, so that segment s still ends at the
  // s-th availability; types that share one get a segment of length 0, which values nothing.
  std::vector<std::map<double, double>> rounded;
  std::map<std::pair<double, int>, int> index_of;  // (availability, type) -> class
  for (const auto& [name, t] : type_index) {
    rounded.push_back(rounding_of_type(problem, name));
    for (const auto& [value, floor] : rounded.back()) index_of.emplace(std::pair{floor, t}, 0);
  }
  for (auto& [key, index] : index_of) {
    index = static_cast<int>(classes.end_s.size());
    classes.end_s.push_back(key.first);
    classes.type.push_back(key.second);
  }
  classes.size.assign(classes.end_s.size(), 0);
  classes.node_class.reserve(problem.nodes.size());
  for (const AllocatableNode& node : problem.nodes) {
    const int t = type_index.at(node.type);
    const double a = ignore_hole_ends ? horizon : availability(node, horizon);
    const int c = index_of.at({rounded[static_cast<std::size_t>(t)].at(a), t});
    classes.node_class.push_back(c);
    ++classes.size[static_cast<std::size_t>(c)];
  }
  return classes;
}

}  // namespace gaptrain::allocator
