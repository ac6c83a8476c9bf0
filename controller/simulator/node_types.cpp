#include "simulator/node_types.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <unordered_map>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/parse_number.hpp"
#include "simulator/csv_record.hpp"

namespace gaptrain::sim {
namespace {

constexpr const char* kCountsForm =
    "expected node types in node order as TYPE=COUNT,... (a100=64,v100=64: the first 64 nodes "
    "a100, the next 64 v100) or a CSV file node,type";

[[noreturn]] void refuse(const std::string& problem) {
  throw InputError("--node-types", problem + "; " + kCountsForm);
}

std::optional<int> positive_count(std::string_view text) {
  const std::optional<int> value = parse_number<int>(text);
  if (!value || *value < 1 || *value > bounds::kMaxNodes) return std::nullopt;
  return value;
}

// Every node of the trace typed, "" where none is, so that one can be set.
std::vector<std::string>& types_of(HoleTrace& trace) {
  trace.node_types.resize(trace.node_names.size());
  return trace.node_types;
}

}  // namespace

bool is_node_type_counts(std::string_view value) {
  return value.find('=') != std::string_view::npos;
}

std::vector<NodeTypeCount> parse_node_type_counts(std::string_view value) {
  std::vector<NodeTypeCount> counts;
  std::set<std::string, std::less<>> seen;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = std::min(value.find(',', pos), value.size());
    const std::string_view item = value.substr(pos, comma - pos);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) refuse("no '=' in " + quote_input(item));
    const std::string_view type = item.substr(0, equals);
    const std::optional<int> nodes = positive_count(item.substr(equals + 1));
    if (type.empty() || type.size() > bounds::kMaxNameBytes) {
      refuse("expected a type name of 1 to " + std::to_string(bounds::kMaxNameBytes) +
             " bytes before '=' in " + quote_input(item));
    }
    if (!nodes) {
      refuse("expected a node count from 1 to " + std::to_string(bounds::kMaxNodes) +
             " after '=' in " + quote_input(item));
    }
    if (!seen.emplace(type).second) refuse("type " + quote_input(type) + " given twice");
    counts.push_back({std::string(type), *nodes});
    if (comma == value.size()) return counts;
    pos = comma + 1;
  }
}

void assign_node_types(HoleTrace& trace, const std::vector<NodeTypeCount>& counts) {
  std::vector<std::string>& types = types_of(trace);
  std::size_t node = 0;
  for (const NodeTypeCount& count : counts) {
    for (int i = 0; i < count.nodes && node < types.size(); ++i) types[node++] = count.type;
  }
}

void assign_node_types(HoleTrace& trace, const std::vector<NodeTypeRow>& rows,
                       const std::string& name) {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < trace.node_names.size(); ++i) index.emplace(trace.node_names[i], i);
  std::vector<std::string>& types = types_of(trace);
  for (const NodeTypeRow& row : rows) {
    const auto it = index.find(row.node);
    if (it == index.end()) {
      const std::string first = trace.node_names.empty() ? "" : trace.node_names.front();
      throw InputError(name + ":" + std::to_string(row.line),
                       "node: " + quote_input(row.node) +
                           " is not a node of the trace (its nodes are named as " +
                           quote_input(first) + ")");
    }
    types[it->second] = row.type;
  }
}

void check_jobs_have_node_types(const HoleTrace& trace, int nodes, const std::vector<JobRow>& jobs,
                                const CurveTable& curves, const std::string& jobs_name) {
  std::set<std::string, std::less<>> present;
  const auto count =
      std::min(static_cast<std::size_t>(std::max(nodes, 0)), trace.node_names.size());
  for (std::size_t i = 0; i < count; ++i)
    present.insert(trace.node_types.empty() ? std::string() : trace.node_types[i]);
  for (const JobRow& job : jobs) {
    const auto model = curves.find(job.model);
    if (model == curves.end() || model->second.by_type.empty()) continue;
    std::string types;
    for (const auto& [type, curve] : model->second.by_type) {
      if (present.contains(type)) {
        types.clear();
        break;
      }
      types += (types.empty() ? "" : ", ") + quote_input(type);
    }
    if (types.empty()) continue;
    throw InputError(jobs_name + ":" + std::to_string(job.line),
                     "model: " + quote_input(job.model) + " runs only on node types " + types +
                         " (its curves) and no replayed node is of one (--node-types gives the "
                         "nodes' types)");
  }
}

}  // namespace gaptrain::sim
