#include "core/cluster.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "gaptrain/parse_number.hpp"

namespace gaptrain::core {

std::string_view to_string(NodeState state) {
  switch (state) {
    case NodeState::idle: return "idle";
    case NodeState::planned: return "planned";
    case NodeState::completing: return "completing";
    case NodeState::allocated: return "allocated";
    case NodeState::mixed: return "mixed";
    case NodeState::draining: return "draining";
    case NodeState::drained: return "drained";
    case NodeState::down: return "down";
    case NodeState::future: return "future";
    case NodeState::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(JobState state) {
  switch (state) {
    case JobState::pending: return "pending";
    case JobState::running: return "running";
    case JobState::suspended: return "suspended";
    case JobState::finished: return "finished";
  }
  return "finished";
}

namespace {
constexpr std::string_view kSatellitePrefix = "gaptrain:";
}  // namespace

std::string satellite_name(std::uint32_t job_id) {
  return std::string(kSatellitePrefix) + std::to_string(job_id);
}

std::optional<std::uint32_t> satellite_owner(std::string_view job_name) {
  if (!job_name.starts_with(kSatellitePrefix)) return std::nullopt;
  const std::string_view digits = job_name.substr(kSatellitePrefix.size());
  const std::optional<std::uint32_t> id = parse_number<std::uint32_t>(digits);
  if (!id || *id == 0) return std::nullopt;
  return id;
}

std::optional<std::uint32_t> requested_node_count(std::string_view tres_req) {
  constexpr std::string_view kNode = "node=";
  while (!tres_req.empty()) {
    const std::size_t comma = tres_req.find(',');
    const std::string_view entry = tres_req.substr(0, comma);
    tres_req = comma == std::string_view::npos ? std::string_view{} : tres_req.substr(comma + 1);
    if (!entry.starts_with(kNode)) continue;
    const std::string_view digits = entry.substr(kNode.size());
    const std::optional<std::uint32_t> count = parse_number<std::uint32_t>(digits);
    if (!count || *count == 0) return std::nullopt;
    return count;
  }
  return std::nullopt;
}

bool in_satellite_partition(std::string_view partition, std::string_view job_partition,
                            std::string_view satellite_partition) {
  return partition == job_partition ||
         (!satellite_partition.empty() && partition == satellite_partition);
}

bool is_satellite_of(const Job& job, const Job& owner, std::string_view satellite_partition) {
  return job.id != owner.id && satellite_owner(job.name) == owner.id &&
         job.user_id == owner.user_id &&
         in_satellite_partition(job.partition, owner.partition, satellite_partition);
}

const Job* find_job(const Snapshot& snapshot, std::uint32_t id) {
  const auto it = std::find_if(snapshot.jobs.begin(), snapshot.jobs.end(),
                               [id](const Job& job) { return job.id == id; });
  return it == snapshot.jobs.end() ? nullptr : &*it;
}

JobIndex::JobIndex(const Snapshot& snapshot) {
  // try_emplace keeps the first of duplicate ids, the one find_job returns.
  for (const Job& job : snapshot.jobs) by_id_.try_emplace(job.id, &job);
}

const Job* JobIndex::find(std::uint32_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::string> types_in_constraint(const std::string& constraint,
                                             const Snapshot& snapshot) {
  std::vector<std::string> types;
  std::string word;
  const auto take = [&] {
    const bool a_type = !word.empty() && std::ranges::any_of(snapshot.nodes, [&](const Node& n) {
      return n.type == word;
    });
    if (a_type && std::ranges::find(types, word) == types.end()) types.push_back(word);
    word.clear();
  };
  for (const char c : constraint) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.') {
      word += c;
    } else {
      take();
    }
  }
  take();
  return types;
}

NodeTypes::NodeTypes(const Snapshot& snapshot) {
  for (const Node& node : snapshot.nodes) {
    if (!node.type.empty()) type_of_.emplace(node.name, node.type);
  }
}

const std::string& NodeTypes::of(const std::string& node) const {
  static const std::string untyped;
  const auto it = type_of_.find(node);
  return it == type_of_.end() ? untyped : it->second;
}

std::optional<std::set<std::string>> partition_nodes(const Snapshot& snapshot,
                                                     std::string_view partitions) {
  if (snapshot.partitions.empty()) return std::nullopt;
  std::set<std::string> nodes;
  while (!partitions.empty()) {
    const std::size_t comma = partitions.find(',');
    const std::string_view name = partitions.substr(0, comma);
    for (const Partition& partition : snapshot.partitions) {
      if (partition.name == name) nodes.insert(partition.nodes.begin(), partition.nodes.end());
    }
    partitions =
        comma == std::string_view::npos ? std::string_view() : partitions.substr(comma + 1);
  }
  return nodes;
}

}  // namespace gaptrain::core
