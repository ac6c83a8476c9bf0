#include "core/slurm_actions.hpp"

#include <algorithm>
#include <string>

namespace gaptrain::daemon {

std::string join_nodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (const std::string& n : nodes) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

std::string shrink_refusal(const ShrinkRequest& r) {
  const std::string what =
      "shrink of job " + std::to_string(r.job_id) + " to [" + join_nodes(r.keep_nodes) + "]";
  if (r.keep_nodes.empty()) return what + ": refused, a job cannot keep no node";
  if (r.batch_host.empty()) return what + ": refused, its batch host is not known";
  if (std::find(r.keep_nodes.begin(), r.keep_nodes.end(), r.batch_host) == r.keep_nodes.end()) {
    return what + ": refused, it would remove the batch host " + r.batch_host;
  }
  return {};
}

}  // namespace gaptrain::daemon
