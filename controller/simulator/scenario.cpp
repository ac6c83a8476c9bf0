#include "simulator/scenario.hpp"

#include <charconv>
#include <filesystem>
#include <string>
#include <system_error>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/parse_number.hpp"
#include "simulator/csv_record.hpp"
#include "simulator/easy_backfill.hpp"
#include "simulator/node_event_trace.hpp"
#include "simulator/node_types.hpp"

namespace gaptrain::sim {

namespace {

// The MODEL-validation-BATCH.csv of `model` in `dir` with the smallest BATCH (the batch Pollux
// tuned it at): its path and BATCH; empty when there is none.
std::optional<std::pair<std::filesystem::path, int>> validation_file(
    const std::filesystem::path& dir, const std::string& model) {
  std::optional<std::pair<std::filesystem::path, int>> best;
  const std::string prefix = model + "-validation-";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".csv")) continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    const int batch = parse_number<int>(digits).value_or(0);
    if (batch < 1) continue;
    if (!best || batch < best->second) best = {entry.path(), batch};
  }
  return best;
}

// --models DIR: the Pollux model of every model the job mix names.
ModelTable load_models(const std::string& dir, const std::vector<JobRow>& jobs,
                       const std::function<std::string(const std::string&)>& read) {
  if (!std::filesystem::is_directory(dir)) {
    throw InputError("--models", quote_input(dir) + " is not a directory (Pollux's model files)");
  }
  ModelTable models;
  for (const JobRow& job : jobs) {
    if (models.contains(job.model)) continue;
    const std::filesystem::path scalability =
        std::filesystem::path(dir) / (job.model + "-scalability.csv");
    const auto validation = validation_file(dir, job.model);
    if (!std::filesystem::exists(scalability) || !validation) {
      throw InputError("--models", quote_input(dir) + " has no " + job.model +
                                       "-scalability.csv or " + job.model +
                                       "-validation-BATCH.csv for the job mix's model " +
                                       quote_input(job.model));
    }
    models[job.model] = pollux_model(read(scalability.string()), scalability.string(),
                                     read(validation->first.string()), validation->first.string(),
                                     validation->second);
  }
  return models;
}

}  // namespace

Scenario load_scenario(const ScenarioFiles& files, const BuiltInScenario& built_in) {
  Scenario in;
  const std::size_t max_bytes = files.max_input_bytes;
  const auto read = [max_bytes](const std::string& path) {
    return read_input_file(path, max_bytes);
  };
  if (!files.node_events.empty()) {
    in.trace_name = files.node_events;
    in.trace_kind = "node-events";
    in.trace =
        trace_from_node_events(parse_node_events(read(files.node_events), files.node_events));
  } else {
    const bool default_trace = files.swf.empty();
    in.trace_name = default_trace ? std::string(built_in.trace_name) : files.swf;
    in.trace_kind = "swf";
    const SwfLog log =
        parse_swf(default_trace ? built_in.swf_text() : read(files.swf), in.trace_name);
    in.swf_skipped = log.skipped;
    // The replay makes a node for each the header claims: a size no cluster has is a mistake.
    if (log.max_nodes > bounds::kMaxNodes) {
      throw InputError(in.trace_name, "the header's machine size " + std::to_string(log.max_nodes) +
                                          " is more nodes than any cluster has (at most " +
                                          std::to_string(bounds::kMaxNodes) + ")");
    }
    if (log.jobs.empty()) {
      throw InputError(in.trace_name,
                       "no record can be replayed: " + std::to_string(log.skipped) +
                           " skipped (run time or processors unknown or <= 0, or more processors "
                           "than the machine's " +
                           std::to_string(log.max_nodes) + ")");
    }
    in.trace = replay_easy_backfill(log);
  }
  if (in.trace.node_names.empty()) throw InputError(in.trace_name, "the trace has no nodes");
  // Else --start would be refused, saying the trace lasts 0 s, which is no help.
  if (!(in.trace.end_s > 0.0)) {
    throw InputError(in.trace_name,
                     "the trace spans no time: every event is at the same moment, so there is "
                     "no hole to replay");
  }

  if (!files.node_types.empty()) {
    in.node_types_name = files.node_types;
    if (is_node_type_counts(files.node_types)) {
      assign_node_types(in.trace, parse_node_type_counts(files.node_types));
    } else {
      assign_node_types(in.trace, parse_node_types(read(files.node_types), files.node_types),
                        files.node_types);
    }
  }

  const bool default_mix = files.jobs.empty();
  in.jobs_name = default_mix ? std::string(built_in.jobs_name) : files.jobs;
  in.curves_name = default_mix ? std::string(built_in.curves_name) : files.curves;
  in.jobs =
      parse_jobs(default_mix ? std::string(built_in.jobs_csv) : read(files.jobs), in.jobs_name);
  if (!files.models.empty()) {
    in.curves_name.clear();
    in.models = std::make_shared<const ModelTable>(load_models(files.models, in.jobs, read));
    check_jobs_have_models(in.jobs, *in.models, in.jobs_name);
  } else {
    in.curves = parse_curves(default_mix ? std::string(built_in.curves_csv) : read(files.curves),
                             in.curves_name);
    check_models_known(in.jobs, in.curves, in.jobs_name);
  }
  in.repeat_s = files.repeat_s.value_or(default_mix ? built_in.repeat_s : 0.0);
  return in;
}

}  // namespace gaptrain::sim
