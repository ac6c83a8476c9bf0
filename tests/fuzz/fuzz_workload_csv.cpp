// The simulator's CSV parsers (controller/simulator/workload_io.cpp, `gaptrain simulate
// --node-events/--jobs/--curves/--node-types`): the whole input goes to each of
// parse_node_events() (and an accepted log on to trace_from_node_events()), parse_jobs(),
// parse_curves() and parse_node_types(). Bad input must
// be a gaptrain::InputError; what is accepted must keep the promises of workload_io.hpp,
// csv_record.hpp (text fields valid UTF-8, unpadded) and trace.hpp.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "simulator/csv_record.hpp"
#include "simulator/node_event_trace.hpp"
#include "simulator/workload_io.hpp"

namespace sim = gaptrain::sim;
namespace bounds = gaptrain::bounds;
using gaptrain::fuzz::check;
using gaptrain::fuzz::fail;

namespace {

// What the one CSV field reader (csv_record.hpp) promises of every text field it returns: valid
// UTF-8, and spaces or tabs at its ends only when the input quoted it so ("" for a quote).
void check_text_field(std::string_view input, const std::string& value, const char* what) {
  check(!gaptrain::invalid_utf8_at(value).has_value(), what);
  if (value.empty()) return;
  const bool padded =
      value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t';
  if (!padded) return;
  std::string quoted = "\"";
  for (const char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted += '"';
  if (input.find(quoted) == std::string_view::npos) fail(what, "padded but not quoted so");
}

void node_events(std::string_view text) {
  std::vector<sim::NodeEventRow> rows;
  try {
    rows = sim::parse_node_events(text, "events.csv");
  } catch (const gaptrain::InputError&) {
    return;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    check(rows[i].time_s >= 0.0 && rows[i].time_s <= bounds::kMaxTraceTimeS,
          "node event time outside [0, kMaxTraceTimeS]");
    check(!rows[i].node.empty() && rows[i].node.size() <= bounds::kMaxNameBytes,
          "node event without a node, or one no host has");
    check_text_field(text, rows[i].node, "node name not valid UTF-8 or padded");
    check(rows[i].type.size() <= bounds::kMaxNameBytes, "node type longer than a name may be");
    check_text_field(text, rows[i].type, "node type not valid UTF-8 or padded");
    check(i == 0 || rows[i - 1].time_s <= rows[i].time_s, "node events out of time order");
  }
  sim::HoleTrace trace;
  try {
    trace = sim::trace_from_node_events(rows);
  } catch (const gaptrain::InputError&) {
    return;
  }
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    const sim::TraceStep& step = trace.steps[i];
    check(i == 0 || trace.steps[i - 1].time_s < step.time_s, "trace steps not strictly increasing");
    check(step.time_s <= trace.end_s, "a trace step after the trace's end");
    for (const sim::NodeUpdate& update : step.updates) {
      check(update.node >= 0 && static_cast<std::size_t>(update.node) < trace.node_names.size(),
            "trace update names no node");
    }
  }
}

void jobs(std::string_view text) {
  std::vector<sim::JobRow> specs;
  try {
    specs = sim::parse_jobs(text, "jobs.csv");
  } catch (const gaptrain::InputError&) {
    return;
  }
  std::set<std::string> ids;
  for (const sim::JobRow& job : specs) {
    check(ids.insert(job.id).second, "job id used twice");
    check(!job.model.empty(), "job without a model");
    check_text_field(text, job.id, "job id not valid UTF-8 or padded");
    check_text_field(text, job.model, "job model not valid UTF-8 or padded");
    check(job.min_nodes >= 1 && job.min_nodes <= job.max_nodes, "job node range not 1<=min<=max");
    check(std::isfinite(job.work_samples) && job.work_samples > 0.0, "job work not > 0");
    check(job.work_samples <= bounds::kMaxWorkSamples, "job work beyond kMaxWorkSamples");
    // The bounds `gaptrain solve` and the plugin put on rescale costs (bounds.hpp).
    check(job.up_cost_s >= 0.0 && job.up_cost_s <= bounds::kMaxSeconds && job.down_cost_s >= 0.0 &&
              job.down_cost_s <= bounds::kMaxSeconds,
          "job cost not in [0, kMaxSeconds]");
    check(job.submit_s >= 0.0 && job.submit_s <= bounds::kMaxTraceTimeS,
          "job submit time not in [0, kMaxTraceTimeS]");
  }
}

void curves(std::string_view text) {
  sim::CurveTable table;
  try {
    table = sim::parse_curves(text, "curves.csv");
  } catch (const gaptrain::InputError&) {
    return;
  }
  check(!table.empty(), "no curves accepted");
  const auto check_points = [](const gaptrain::ScalingCurve& curve) {
    int previous = 0;
    for (const gaptrain::ScalingCurve::Point& point : curve.points()) {
      check(point.nodes > previous, "curve node counts not increasing from 1");
      check(std::isfinite(point.samples_per_s) && point.samples_per_s >= 0.0,
            "curve rate not >= 0");
      previous = point.nodes;
    }
  };
  for (const auto& [model, curves] : table) {
    check_text_field(text, model, "curve model not valid UTF-8 or padded");
    check_points(curves.curve);
    for (const auto& [type, curve] : curves.by_type) {
      check_text_field(text, type, "curve node type not valid UTF-8 or padded");
      check_points(curve);
    }
  }
}

void node_types(std::string_view text) {
  std::vector<sim::NodeTypeRow> rows;
  try {
    rows = sim::parse_node_types(text, "types.csv");
  } catch (const gaptrain::InputError&) {
    return;
  }
  std::set<std::string> nodes;
  for (const sim::NodeTypeRow& row : rows) {
    check(!row.node.empty() && !row.type.empty(), "node type row without a node or a type");
    check_text_field(text, row.node, "typed node name not valid UTF-8 or padded");
    check_text_field(text, row.type, "node type not valid UTF-8 or padded");
    check(nodes.insert(row.node).second, "a node typed twice");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);
  node_events(text);
  jobs(text);
  curves(text);
  node_types(text);
  return 0;
}
