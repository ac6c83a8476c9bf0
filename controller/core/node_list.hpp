// Lists of node names as Slurm gives them (a job's nodes, its excluded or required nodes).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace gaptrain::core {

// Whether `node` is in `nodes` (a short list, read in order).
inline bool contains(const std::vector<std::string>& nodes, const std::string& node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

}  // namespace gaptrain::core
