// Pollux-format model data (../shared/data/models/pollux): a step-time model fitted to
// MODEL-scalability.csv and the gradient noise scale over training from MODEL-validation-BATCH.csv.
// Pure: text in, plain structs out; the CLI reads the files.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/goodput.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

// MODEL-scalability.csv (header num_nodes,num_replicas,local_bsz,step_time,sync_time). One
// gaptrain node is one Pollux replica: the rows give step times by replica count, which is what
// a node count is to gaptrain (Pollux's num_nodes packs several replicas per machine, a placement
// gaptrain does not choose). Least squares over every row of step_time - sync_time against
// local_bsz gives fixed_s and per_sample_s; sync_s(r) is the mean sync_time of the rows with r
// replicas (sync_s(1) = 0, linear between, as StepTimeModel reads it). Throws InputError naming
// "NAME:LINE" for a row that is not five finite numbers >= 0 with counts >= 1.
StepTimeModel fit_step_time(std::string_view text, const std::string& name);

// The noise scale over a job's progress: phi = tuned * grad_var / grad_sqr at each row of
// MODEL-validation-BATCH.csv (header progress,iteration,metric,grad_sqr,grad_var), progress in
// samples at the file's batch; linear between rows, flat beyond.
struct NoiseProfile {
  struct Point {
    double progress = 0.0;
    double noise_scale = 0.0;
  };
  std::vector<Point> points;  // progress increasing, at least one
  double at(double progress) const;
  double final_progress() const { return points.back().progress; }
};
NoiseProfile parse_noise_profile(std::string_view text, const std::string& name, double tuned);

// One Pollux model as `gaptrain simulate --models` replays it: how long its steps take, how
// large a batch one node holds, and its noise scale over training.
struct PolluxModel {
  StepTimeModel step_time;
  int max_local_batch = 0;  // the largest local_bsz of MODEL-scalability.csv: what fits a node
  NoiseProfile noise;       // progress in samples (the file's steps times its batch)
};
using ModelTable = std::map<std::string, PolluxModel>;

// From the texts of MODEL-scalability.csv and MODEL-validation-BATCH.csv (`batch`: BATCH).
PolluxModel pollux_model(std::string_view scalability, const std::string& scalability_name,
                         std::string_view validation, const std::string& validation_name,
                         int batch);

// Throws InputError (field "JOBS_NAME:LINE") for the first job whose model is not in `models`
// or that has no batch range: with --models every job trains by its model, at a batch in its
// range.
void check_jobs_have_models(const std::vector<JobRow>& jobs, const ModelTable& models,
                            const std::string& jobs_name);

}  // namespace gaptrain::sim
