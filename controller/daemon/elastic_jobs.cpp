#include "elastic_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::daemon {

namespace {

std::optional<std::string> check_cost(const std::optional<double>& cost, const char* name) {
  if (cost && (!std::isfinite(*cost) || *cost < 0.0)) {
    return std::string(name) + " must be a finite number of seconds >= 0";
  }
  return std::nullopt;
}

// The job's own nodes, batch host first (the launcher's rendezvous host).
std::vector<std::string> batch_host_first(const Job& job, const std::string& batch_host) {
  std::vector<std::string> nodes;
  if (std::find(job.nodes.begin(), job.nodes.end(), batch_host) != job.nodes.end()) {
    nodes.push_back(batch_host);
  }
  for (const std::string& node : job.nodes) {
    if (node != batch_host) nodes.push_back(node);
  }
  return nodes;
}

}  // namespace

std::string_view to_string(Source source) {
  return source == Source::given ? "given" : "assumed";
}

std::vector<std::pair<int, double>> assumed_curve(int max_nodes) {
  std::vector<std::pair<int, double>> points;
  for (int n = 1; n < max_nodes; n *= 2) {
    points.emplace_back(n, std::pow(static_cast<double>(n), kAssumedExponent));
  }
  if (max_nodes >= 1) {
    points.emplace_back(max_nodes, std::pow(static_cast<double>(max_nodes), kAssumedExponent));
  }
  return points;
}

std::optional<std::string> ElasticJobs::add(const protocol::JobRegistration& request,
                                            const Job* job, std::int64_t now) {
  const std::string id = std::to_string(request.job_id);
  if (job == nullptr) return "job " + id + " is not known to Slurm";
  if (job->state != JobState::running) {
    return "job " + id + " is " + std::string(to_string(job->state)) + ", not running";
  }
  if (request.min_nodes < 1 || request.max_nodes < request.min_nodes) {
    return "min_nodes " + std::to_string(request.min_nodes) + " and max_nodes " +
           std::to_string(request.max_nodes) + " must satisfy 1 <= min_nodes <= max_nodes";
  }
  if (auto problem = check_cost(request.up_cost_s, "up_cost_s")) return problem;
  if (auto problem = check_cost(request.down_cost_s, "down_cost_s")) return problem;

  ElasticJob elastic;
  elastic.job_id = request.job_id;
  elastic.user = job->user.empty() ? request.user : job->user;
  elastic.uid = job->user_id;
  elastic.batch_host = job->batch_host.empty() ? request.batch_host : job->batch_host;
  elastic.nodes = batch_host_first(*job, elastic.batch_host);
  elastic.min_nodes = request.min_nodes;
  elastic.max_nodes = request.max_nodes;
  if (request.curve.empty()) {
    elastic.curve = assumed_curve(request.max_nodes);
  } else {
    // The allocator's own contract (node counts increasing from >= 1, finite rates >= 0).
    std::vector<ScalingCurve::Point> points;
    for (const auto& [nodes, rate] : request.curve) points.push_back({nodes, rate});
    try {
      ScalingCurve checked(points);
    } catch (const InputError& e) {
      return std::string(e.what());  // names the point: "curve[1]: ..."
    }
    elastic.curve_source = Source::given;
    elastic.curve = request.curve;
  }
  if (request.up_cost_s && request.down_cost_s) elastic.costs_source = Source::given;
  elastic.up_cost_s = request.up_cost_s.value_or(kAssumedRescaleCostS);
  elastic.down_cost_s = request.down_cost_s.value_or(kAssumedRescaleCostS);
  elastic.registered_at = now;
  jobs_[request.job_id] = std::move(elastic);
  return std::nullopt;
}

bool ElasticJobs::report(const protocol::LauncherReport& report, std::int64_t now) {
  const auto it = jobs_.find(report.job_id);
  if (it == jobs_.end()) return false;
  ElasticJob& job = it->second;
  if (report.samples_done) job.samples_done = report.samples_done;
  job.reported_at = now;
  job.running = report.running;
  job.drained = report.drained;
  return true;
}

void ElasticJobs::resized(std::uint32_t job_id, std::vector<std::string> nodes,
                          std::map<std::string, std::uint32_t> satellites) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  it->second.nodes = std::move(nodes);
  it->second.satellites = std::move(satellites);
}

std::vector<std::uint32_t> ElasticJobs::refresh(const Snapshot& snapshot) {
  std::vector<std::uint32_t> forgotten;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Job* job = find_job(snapshot, it->first);
    if (job == nullptr || !holds_nodes(*job)) {
      forgotten.push_back(it->first);
      it = jobs_.erase(it);
      continue;
    }
    ElasticJob& elastic = it->second;
    if (!job->batch_host.empty()) elastic.batch_host = job->batch_host;
    elastic.nodes = batch_host_first(*job, elastic.batch_host);
    elastic.satellites.clear();
    for (const Job& satellite : snapshot.jobs) {
      if (!holds_nodes(satellite) || satellite_owner(satellite.name) != it->first) continue;
      for (const std::string& node : satellite.nodes) {
        elastic.satellites[node] = satellite.id;
        elastic.nodes.push_back(node);
      }
    }
    ++it;
  }
  return forgotten;
}

}  // namespace gaptrain::daemon
