// The inputs of a replay (`gaptrain simulate`): the regular workload's trace (an SWF log
// replayed with EASY backfill, or a node-event log), the nodes' types, the elastic job mix and
// its scaling curves or Pollux models, read from the files named or, where none is, from a
// built-in scenario. Formats: docs/simulator.md, "Inputs".
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/model_curves.hpp"
#include "simulator/pollux_models.hpp"
#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

// The files as the user named them ("" where not given).
struct ScenarioFiles {
  std::string swf;          // an SWF log, or "" (then node_events, or the built-in trace)
  std::string node_events;  // a node-event log
  std::string node_types;   // TYPE=COUNT,... or a CSV file node,type
  std::string jobs;         // the job mix; "" with curves "": the built-in mix
  std::string curves;
  std::string models;              // a directory of Pollux's model files, instead of curves
  std::optional<double> repeat_s;  // resubmit the mix this often (default: the built-in's)
  std::size_t max_input_bytes = 0;
};

// What a replay runs when given no trace or no job mix: the names it reports and the texts.
struct BuiltInScenario {
  std::string_view trace_name;
  std::function<std::string()> swf_text;  // decompressed on demand: only when used
  std::string_view jobs_name;
  std::string_view jobs_csv;
  std::string_view curves_name;
  std::string_view curves_csv;
  double repeat_s = 0.0;  // the built-in mix's resubmission period
};

// The trace, jobs and curves the replay runs on, with the names messages and the summary use.
struct Scenario {
  HoleTrace trace;
  std::string trace_name;
  std::string trace_kind;       // "swf" | "node-events"
  std::string node_types_name;  // --node-types' file, or its counts
  int swf_skipped = 0;
  std::vector<JobRow> jobs;
  std::string jobs_name;
  CurveTable curves;
  std::string curves_name;
  std::shared_ptr<const ModelTable> models;  // --models
  double repeat_s = 0.0;
};

// Reads and checks every input; throws InputError naming the file (and line) of the first wrong
// one, so that nothing runs on bad input.
Scenario load_scenario(const ScenarioFiles& files, const BuiltInScenario& built_in);

}  // namespace gaptrain::sim
