// What `gaptrain simulate` writes of a replay: the table for people, the JSON for scripts
// (the summary, the oracle's fields and the run's parameters) and the per-event log
// (docs/simulator.md, "Outputs").
#pragma once

#include <json/json.h>

#include <optional>
#include <ostream>
#include <string>

#include "simulate_args.hpp"
#include "simulator/scenario.hpp"
#include "simulator/simulator.hpp"
#include "simulator/upper_bound.hpp"

namespace gaptrain::cli {

// --log: the CSV header, and one line per event (times from the window's start).
void write_log_header(std::ostream& log);
void write_log_line(std::ostream& log, const sim::StepRecord& r, double start_s);

// The nodes the replay runs: --nodes where it is fewer than the trace has.
int replayed_nodes(const sim::Scenario& in, const sim::SimOptions& options);

// The run's inputs and settings, as --json's "parameters".
Json::Value parameters_json(const SimulateArgs& args, const sim::Scenario& in,
                            const sim::SimOptions& options);

// --json: the summary, the oracle's fields (always there, null without --oracle) and the
// run's parameters.
std::string run_json(const SimulateArgs& args, const sim::Scenario& in,
                     const sim::SimOptions& options, const sim::SimSummary& summary, double wall_s,
                     const std::optional<sim::UpperBound>& bound, double bound_wall_s);

// The default: the table for people.
std::string run_table(const SimulateArgs& args, const sim::Scenario& in,
                      const sim::SimOptions& options, const sim::SimSummary& summary, double wall_s,
                      const std::optional<sim::UpperBound>& bound);

}  // namespace gaptrain::cli
