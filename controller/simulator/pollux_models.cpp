#include "simulator/pollux_models.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>

#include "gaptrain/input_error.hpp"
#include "gaptrain/parse_number.hpp"
#include "simulator/csv_record.hpp"

namespace gaptrain::sim {

namespace {

constexpr std::string_view kScalabilityColumns =
    "num_nodes,num_replicas,local_bsz,step_time,sync_time";

// Rows of five finite numbers >= 0 after the header `columns`; blank lines skipped.
std::vector<std::array<double, 5>> numeric_rows(std::string_view text, const std::string& name,
                                                std::string_view columns) {
  std::vector<std::array<double, 5>> rows;
  int line_number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = name + ":" + std::to_string(line_number);
    if (line_number == 1) {
      if (line != columns) {
        throw InputError(
            where, "expected the header " + std::string(columns) + ", got " + quote_input(line));
      }
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::array<std::string_view, 5> fields;
    std::array<std::string, 5> unescaped;
    if (split_csv_record(line, fields, unescaped) != fields.size()) {
      throw InputError(where, "expected 5 fields (" + std::string(columns) + ")");
    }
    std::array<double, 5> row{};
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const std::string_view f = fields[i];
      const std::optional<double> value = parse_number<double>(f);
      if (value) row[i] = *value;
      if (!value || row[i] < 0.0) {
        throw InputError(where, "field " + std::to_string(i + 1) +
                                    ": expected a finite number >= 0, got " + quote_input(f));
      }
    }
    rows.push_back(row);
  }
  if (rows.empty()) throw InputError(name, "no rows: the file has only a header");
  return rows;
}

}  // namespace

StepTimeModel fit_step_time(std::string_view text, const std::string& name) {
  const auto rows = numeric_rows(text, name, kScalabilityColumns);
  // Least squares of compute time (step - sync) against the local batch.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  std::map<int, std::pair<double, int>> sync_by_replicas;
  for (const auto& [nodes, replicas, local, step, sync] : rows) {
    if (replicas < 1.0 || local < 1.0 || nodes < 1.0) {
      throw InputError(name, "num_nodes, num_replicas and local_bsz must be >= 1");
    }
    const double compute = std::max(0.0, step - sync);
    n += 1;
    sx += local;
    sy += compute;
    sxx += local * local;
    sxy += local * compute;
    auto& [sum, count] = sync_by_replicas[static_cast<int>(replicas)];
    sum += sync;
    ++count;
  }
  StepTimeModel model;
  const double denominator = n * sxx - sx * sx;
  if (denominator > 0.0) {
    model.per_sample_s = std::max(0.0, (n * sxy - sx * sy) / denominator);
    model.fixed_s = std::max(0.0, (sy - model.per_sample_s * sx) / n);
  } else {  // one local batch only: all of it per sample
    model.per_sample_s = sy / sx;
  }
  if (!(model.per_sample_s > 0.0)) {
    throw InputError(name, "the step time does not grow with local_bsz: no throughput model");
  }
  model.sync_s[1] = 0.0;
  for (const auto& [replicas, sum_count] : sync_by_replicas) {
    if (replicas > 1) model.sync_s[replicas] = sum_count.first / sum_count.second;
  }
  return model;
}

double NoiseProfile::at(double progress) const {
  if (progress <= points.front().progress) return points.front().noise_scale;
  if (progress >= points.back().progress) return points.back().noise_scale;
  const auto after =
      std::upper_bound(points.begin(), points.end(), progress,
                       [](double p, const Point& point) { return p < point.progress; });
  const Point& a = *(after - 1);
  const Point& b = *after;
  const double t = (progress - a.progress) / (b.progress - a.progress);
  return a.noise_scale + t * (b.noise_scale - a.noise_scale);
}

NoiseProfile parse_noise_profile(std::string_view text, const std::string& name, double tuned) {
  NoiseProfile profile;
  for (const auto& [progress, iteration, metric, grad_sqr, grad_var] :
       numeric_rows(text, name, "progress,iteration,metric,grad_sqr,grad_var")) {
    if (!profile.points.empty() && progress <= profile.points.back().progress) {
      throw InputError(name, "progress must increase from row to row");
    }
    // A zero grad_sqr says the noise dominates: the largest phi the bounds allow.
    const double phi = grad_sqr > 0.0 ? tuned * grad_var / grad_sqr : 1e18;
    profile.points.push_back({progress, std::min(phi, 1e18)});
  }
  return profile;
}

PolluxModel pollux_model(std::string_view scalability, const std::string& scalability_name,
                         std::string_view validation, const std::string& validation_name,
                         int batch) {
  PolluxModel model;
  model.step_time = fit_step_time(scalability, scalability_name);
  for (const auto& row : numeric_rows(scalability, scalability_name, kScalabilityColumns)) {
    model.max_local_batch = std::max(model.max_local_batch, static_cast<int>(row[2]));
  }
  model.noise = parse_noise_profile(validation, validation_name, batch);
  for (NoiseProfile::Point& point : model.noise.points) point.progress *= batch;
  return model;
}

void check_jobs_have_models(const std::vector<JobRow>& jobs, const ModelTable& models,
                            const std::string& jobs_name) {
  for (const JobRow& job : jobs) {
    const std::string where = jobs_name + ":" + std::to_string(job.line);
    if (!models.contains(job.model)) {
      throw InputError(where, "model " + quote_input(job.model) +
                                  " has no Pollux model (MODEL-scalability.csv and "
                                  "MODEL-validation-BATCH.csv) in --models");
    }
    if (!job.batch) {
      throw InputError(where, "job " + quote_input(job.id) +
                                  " has no batch_size: with --models every job needs "
                                  "batch_size and max_batch_size");
    }
  }
}

}  // namespace gaptrain::sim
