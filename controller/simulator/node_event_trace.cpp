#include "simulator/node_event_trace.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_map>

#include "gaptrain/input_error.hpp"

namespace gaptrain::sim {
namespace {

// Node names to indices in order of first appearance; the names land in the trace.
class NodeIndex {
 public:
  explicit NodeIndex(std::vector<std::string>& names) : names_(names) {}

  int operator()(const std::string& name) {
    const auto [it, inserted] = index_.try_emplace(name, static_cast<int>(names_.size()));
    if (inserted) names_.push_back(name);
    return it->second;
  }

 private:
  std::vector<std::string>& names_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace

HoleTrace trace_from_node_events(const std::vector<NodeEventRow>& rows) {
  HoleTrace trace;
  if (rows.empty()) return trace;
  NodeIndex node_index(trace.node_names);
  const double start_s = rows.front().time_s;

  // Per node: its state in the trace so far (busy until its first update, as HoleTrace says,
  // so a first row saying busy changes nothing) and its last state at the current time.
  std::vector<char> idle;
  std::vector<char> idle_now;
  std::vector<int> touched;  // nodes with a row at the current time
  std::vector<std::string> types;
  bool typed = false;
  std::size_t row = 0;
  while (row < rows.size()) {
    const double time_s = rows[row].time_s;
    touched.clear();
    for (; row < rows.size() && rows[row].time_s == time_s; ++row) {
      const auto node = static_cast<std::size_t>(node_index(rows[row].node));
      if (node == idle.size()) {
        idle.push_back(0);
        idle_now.push_back(0);
        types.emplace_back();
      }
      // parse_node_events checked that a node's rows give it one type.
      if (!rows[row].type.empty()) {
        types[node] = rows[row].type;
        typed = true;
      }
      // Several rows for one node at one time: only the last counts, so the step carries the
      // net change.
      idle_now[node] = rows[row].idle ? 1 : 0;
      touched.push_back(static_cast<int>(node));
    }
    if (row < rows.size() && rows[row].time_s < time_s) {
      throw InputError("rows[" + std::to_string(row) + "]",
                       "time_s: expected rows in non-decreasing time order, got " +
                           std::to_string(rows[row].time_s) + " after " + std::to_string(time_s));
    }

    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    TraceStep step{time_s - start_s, {}};
    for (const int node : touched) {
      const auto n = static_cast<std::size_t>(node);
      if (idle_now[n] == idle[n]) continue;  // a repeated state
      idle[n] = idle_now[n];
      step.updates.push_back({.node = node, .idle = idle[n] != 0});
    }
    if (!step.updates.empty()) trace.steps.push_back(std::move(step));
  }
  if (typed) trace.node_types = std::move(types);
  trace.end_s = rows.back().time_s - start_s;
  trace.has_plan = false;
  fill_actual_ends(trace);
  return trace;
}

}  // namespace gaptrain::sim
