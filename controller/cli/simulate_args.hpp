// What `gaptrain simulate` was asked, as its command line sets it (simulate_command.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "simulator/sim_options.hpp"

namespace gaptrain::cli {

struct SimulateArgs {
  std::string swf;
  std::string node_events;
  std::string jobs;
  std::string curves;
  std::string models;  // --models DIR
  std::string batch = "adaptive";
  bool batch_given = false;
  std::string policy = "gaptrain";
  bool learn = false;
  bool ignore_allowed_sizes = false;
  std::string node_types;  // --node-types: TYPE=COUNT,... or a CSV file
  bool ignore_node_types = false;
  int nodes = 0;
  int max_running = static_cast<int>(sim::kMaxRunningOption.default_value);
  double start_s = sim::kStartOption.default_value;
  double duration_s = sim::kDurationOption.default_value;
  std::string config_path;          // gaptraind.json: the daemon's settings
  std::optional<double> horizon_s;  // overrides the configuration's horizon_s
  std::optional<double> fair_p;     // overrides the configuration's fair_p
  bool home = false;                // --home: the home mode, as docs/admin.md sets it up
  double time_limit_s = sim::kTimeLimitOption.default_value;
  // Not the allocator's default: see docs/simulator.md, "Which objective".
  std::string objective = "speedup";
  std::string placement = "slurm";
  std::optional<double> repeat_s;
  std::size_t max_input_mb = static_cast<std::size_t>(sim::kMaxInputMbOption.default_value);
  bool with_oracle = false;
  bool compare = false;
  bool json = false;      // --json (with or without FILE) or --pretty: JSON instead of the table
  std::string json_path;  // "-" (stdout) when --json came without FILE
  std::string log_path;
  std::string plot_path;
  bool plot_jobs = false;
  bool pretty = false;
};

}  // namespace gaptrain::cli
