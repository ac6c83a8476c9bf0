#include "core/slurm_actions.hpp"

#include <algorithm>
#include <string>

namespace gaptrain::core {

std::string join_nodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (const std::string& n : nodes) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

std::string satellite_tres(const std::string& tres_per_node, const std::string& type,
                           NodeTypeSource source) {
  if (source != NodeTypeSource::gres || type.empty()) return tres_per_node;
  // Slurm's list: "gres/gpu:4,gres/nvme:1"; an item "gres/gpu:TYPE:N" already names a type.
  std::string out;
  std::size_t start = 0;
  while (start <= tres_per_node.size()) {
    std::size_t end = tres_per_node.find(',', start);
    if (end == std::string::npos) end = tres_per_node.size();
    std::string item = tres_per_node.substr(start, end - start);
    constexpr std::string_view kGpu = "gres/gpu:";
    const bool untyped_count = item.starts_with(kGpu) &&
                               item.find(':', kGpu.size()) == std::string::npos &&
                               item.size() > kGpu.size() &&
                               std::all_of(item.begin() + static_cast<std::ptrdiff_t>(kGpu.size()),
                                           item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (untyped_count) item.insert(kGpu.size(), type + ":");
    if (!out.empty()) out += ',';
    out += item;
    start = end + 1;
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

}  // namespace gaptrain::core
