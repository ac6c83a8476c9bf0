#include "allocator/allocation.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <unordered_map>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/node_sizes.hpp"

namespace gaptrain::allocator {

std::string_view to_string(Objective objective) {
  switch (objective) {
    case Objective::throughput: return "throughput";
    case Objective::speedup: return "speedup";
    case Objective::fair: return "fair";
  }
  return "?";
}

std::optional<Objective> objective_from_string(std::string_view name) {
  for (Objective o : {Objective::throughput, Objective::speedup, Objective::fair}) {
    if (to_string(o) == name) return o;
  }
  return std::nullopt;
}

double fair_value(double speedup, double weight, double p) {
  // Below |p| = 1e-9 the power's rounding would swamp the difference: the limit is exact there.
  if (std::abs(p) < 1e-9) return weight * std::log2(1.0 + speedup);
  return weight * std::expm1(p * std::log1p(speedup)) / (p * std::numbers::ln2);
}

std::string_view to_string(CallStatus status) {
  return status == CallStatus::ok ? "ok" : "error";
}

std::string_view to_string(ModelStatus status) {
  switch (status) {
    case ModelStatus::optimal: return "optimal";
    case ModelStatus::time_limit: return "time_limit";
    case ModelStatus::infeasible: return "infeasible";
    case ModelStatus::not_solved: return "not_solved";
  }
  return "?";
}

namespace {

void require_seconds(double value, const std::string& field) {
  if (!(value >= 0.0 && value <= bounds::kMaxSeconds)) {
    throw InputError(field, "must be a finite number >= 0 and at most " +
                                std::to_string(static_cast<long long>(bounds::kMaxSeconds)) +
                                " (ten years of seconds)");
  }
}

// allowed_sizes: ascending without repeats, each a node count gaptrain accepts. Checked before
// the bounds, which JSON input takes from these sizes when it leaves them out.
void validate_allowed_sizes(const std::vector<int>& sizes, const std::string& field) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1 || sizes[i] > bounds::kMaxNodes) {
      throw InputError(field, "size " + std::to_string(sizes[i]) +
                                  " is not a node count from 1 to " +
                                  std::to_string(bounds::kMaxNodes));
    }
    if (i > 0 && sizes[i] <= sizes[i - 1]) {
      throw InputError(field, "must be ascending without repeats (size " +
                                  std::to_string(sizes[i]) + " follows " +
                                  std::to_string(sizes[i - 1]) + ")");
    }
  }
}

// A size the bounds exclude is a contradiction in the job's own request, not a size to ignore.
void require_sizes_within_bounds(const AllocatableJob& job, const std::string& field) {
  for (int size : job.allowed_sizes) {
    if (size < job.min_nodes || size > job.max_nodes) {
      throw InputError(field,
                       "size " + std::to_string(size) + " is outside [min_nodes, max_nodes] = [" +
                           std::to_string(job.min_nodes) + ", " + std::to_string(job.max_nodes) +
                           "]: drop it, widen min_nodes/max_nodes, or leave them out to "
                           "take the smallest and largest allowed size");
    }
  }
}

// Why mix_types goes with one "curve" only: per-type curves give no rate for a mix of types.
constexpr const char* kMixNeedsOneCurve =
    "needs one \"curve\" (the job's rate on any mix of node types), not per-type \"curves\": "
    "with a curve per type, the rate of a mix of types is unknown";

std::string quoted_type(const std::string& type) {
  return type.empty() ? "the default type \"\"" : "type \"" + type + "\"";
}

// A job runs on one node type at a time (docs/allocator.md, "Node types"): the nodes it holds
// are all of one type, and one it has a curve for. Anything else is a state the allocator
// cannot keep or value, so it is refused rather than guessed at. A job that mixes types has one
// curve for every type and may hold any mix.
void validate_held_types(const AllocationProblem& problem,
                         const std::unordered_map<std::string, std::size_t>& job_index) {
  std::vector<const AllocatableNode*> first_held(problem.jobs.size(), nullptr);
  for (const AllocatableNode& node : problem.nodes) {
    if (!node.job) continue;
    const std::size_t j = job_index.at(*node.job);
    const std::string field = "jobs[" + std::to_string(j) + "]";
    const AllocatableNode*& first = first_held[j];
    if (first == nullptr) {
      first = &node;
      if (curve_on(problem.jobs[j], node.type) == nullptr) {
        throw InputError(field + ".curves", "has no curve for " + quoted_type(node.type) +
                                                " of node \"" + node.name +
                                                "\", which the job holds: add curves[\"" +
                                                node.type + "\"] or release the node");
      }
    } else if (first->type != node.type && !problem.jobs[j].mix_types) {
      throw InputError(field, "holds nodes of two types (\"" + first->name +
                                  "\": " + quoted_type(first->type) + ", \"" + node.name +
                                  "\": " + quoted_type(node.type) +
                                  "); a job runs on one node type unless it sets mix_types: "
                                  "release the nodes of one type");
    }
  }
}

}  // namespace

const ScalingCurve* curve_on(const AllocatableJob& job, const std::string& type) {
  if (job.curves.empty()) return &job.curve;
  const auto it = job.curves.find(type);
  return it == job.curves.end() ? nullptr : &it->second;
}

bool size_allowed(const AllocatableJob& job, int nodes) {
  return allows(NodeSizes{job.min_nodes, job.max_nodes, job.allowed_sizes}, nodes);
}

void validate_job(const AllocatableJob& job, const std::string& field) {
  if (job.id.empty()) throw InputError(field + ".id", "must not be empty");
  validate_allowed_sizes(job.allowed_sizes, field + ".allowed_sizes");
  if (job.min_nodes < 1) throw InputError(field + ".min_nodes", "must be >= 1");
  if (job.max_nodes < job.min_nodes) {
    throw InputError(field + ".max_nodes", "must be >= min_nodes (" +
                                               std::to_string(job.min_nodes) + "), got " +
                                               std::to_string(job.max_nodes));
  }
  require_sizes_within_bounds(job, field + ".allowed_sizes");
  for (const auto& [type, curve] : job.curves) {
    if (type.size() > bounds::kMaxNameBytes) {
      throw InputError(field + ".curves", "names a node type longer than " +
                                              std::to_string(bounds::kMaxNameBytes) + " bytes");
    }
  }
  if (job.mix_types && !job.curves.empty())
    throw InputError(field + ".mix_types", kMixNeedsOneCurve);
  require_seconds(job.up_cost_s, field + ".up_cost_s");
  require_seconds(job.down_cost_s, field + ".down_cost_s");
  if (!(job.weight > 0.0 && job.weight <= bounds::kMaxWeight)) {
    throw InputError(field + ".weight", "must be a finite number > 0 and at most 1e6");
  }
  if (job.batch) {
    const BatchRange& b = *job.batch;
    if (b.tuned < 1 || b.tuned > bounds::kMaxBatch) {
      throw InputError(field + ".batch.tuned", "must be a whole number of samples from 1 to 1e9");
    }
    if (b.max < b.tuned || b.max > bounds::kMaxBatch) {
      throw InputError(field + ".batch.max", "must be at least batch.tuned (" +
                                                 std::to_string(b.tuned) + ") and at most 1e9");
    }
    if (b.max_per_node < 0 || b.max_per_node > bounds::kMaxBatch) {
      throw InputError(field + ".batch.max_per_node",
                       "must be from 0 (tuned / min_nodes) to 1e9 samples");
    }
  }
  if (job.noise_scale && !(*job.noise_scale >= 0.0 && *job.noise_scale <= bounds::kMaxNoiseScale)) {
    throw InputError(field + ".noise_scale",
                     "must be a finite number of samples >= 0 and at most 1e15");
  }
  if (job.noise_scale && !job.batch) {
    throw InputError(field + ".noise_scale", "needs a batch range (batch): it values batch sizes");
  }
}

AllocationProblem valued_by_goodput(AllocationProblem problem) {
  for (AllocatableJob& job : problem.jobs) {
    if (!job.batch) continue;
    const BatchRange& b = *job.batch;
    const int reference = (b.tuned + job.min_nodes - 1) / job.min_nodes;
    // A max_nodes above the node count means all of them: no point beyond those is needed.
    const int most =
        std::max(job.min_nodes, std::min(job.max_nodes, static_cast<int>(problem.nodes.size())));
    const auto goodput = [&](const ScalingCurve& curve) {
      return goodput_curve(StepTimeModel::from_curve(curve, reference), b, job.min_nodes, most,
                           job.noise_scale.value_or(b.tuned), BatchRule::adaptive);
    };
    job.curve = goodput(job.curve);
    for (auto& [type, curve] : job.curves) curve = goodput(curve);
    job.batch.reset();
    job.noise_scale.reset();
  }
  return problem;
}

void validate(const AllocationProblem& problem) {
  if (!(problem.horizon_s > 0.0 && problem.horizon_s <= bounds::kMaxSeconds)) {
    throw InputError("horizon_s", "must be a finite number of seconds > 0 and at most " +
                                      std::to_string(static_cast<long long>(bounds::kMaxSeconds)) +
                                      " (ten years)");
  }
  if (!(problem.fair_p >= kMinFairP && problem.fair_p <= kMaxFairP)) {
    throw InputError("fair_p",
                     "must be a number from -4 to 1 (0: proportional fairness; "
                     "Pollux's p is -1)");
  }
  const SolverOptions& solver = problem.solver;
  if (!(solver.time_limit_s > 0.0 && solver.time_limit_s <= bounds::kMaxTimeLimitS)) {
    throw InputError("solver.time_limit_s",
                     "must be a finite number of seconds > 0 and at most 86400 (a day)");
  }
  if (!std::isfinite(solver.mip_gap) || solver.mip_gap < 0.0 || solver.mip_gap >= 1.0) {
    throw InputError("solver.mip_gap", "must be in [0, 1)");
  }
  if (solver.max_core_options < 0) {
    throw InputError("solver.max_core_options", "must be >= 0 (0: always the compact model)");
  }
  if (solver.max_hole_classes < 1 || solver.max_hole_classes > 64) {
    throw InputError("solver.max_hole_classes", "must be between 1 and 64");
  }

  std::unordered_map<std::string, std::size_t> job_index;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocatableJob& job = problem.jobs[j];
    const std::string field = "jobs[" + std::to_string(j) + "]";
    validate_job(job, field);
    if (!job_index.emplace(job.id, j).second) {
      throw InputError(field + ".id", "duplicate job id \"" + job.id + "\"");
    }
  }

  if (problem.nodes.size() > static_cast<std::size_t>(bounds::kMaxNodes)) {
    throw InputError("nodes", "holds " + std::to_string(problem.nodes.size()) +
                                  " nodes, more than any cluster has (at most " +
                                  std::to_string(bounds::kMaxNodes) + ")");
  }
  std::set<std::string> node_names;
  std::unordered_map<std::string, std::string> holder_of;
  for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
    const AllocatableNode& node = problem.nodes[n];
    const std::string field = "nodes[" + std::to_string(n) + "]";
    if (node.name.empty()) throw InputError(field + ".name", "must not be empty");
    if (node.name.size() > bounds::kMaxNameBytes) {
      throw InputError(field + ".name", "longer than " + std::to_string(bounds::kMaxNameBytes) +
                                            " bytes: no host has such a name");
    }
    if (!node_names.insert(node.name).second) {
      throw InputError(field + ".name", "duplicate node \"" + node.name + "\"");
    }
    if (node.job && !job_index.contains(*node.job)) {
      throw InputError(field + ".job", "held by unknown job \"" + *node.job +
                                           "\" (add it to \"jobs\" or set \"job\": null)");
    }
    if (node.hole_end_s && !std::isfinite(*node.hole_end_s)) {
      throw InputError(field + ".hole_end_s", "must be a finite number of seconds or null");
    }
    if (node.hole_end_s && *node.hole_end_s < 0.0) {
      throw InputError(field + ".hole_end_s", "must be >= 0 (seconds from now)");
    }
    if (node.type.size() > bounds::kMaxNameBytes) {
      throw InputError(field + ".type", "longer than " + std::to_string(bounds::kMaxNameBytes) +
                                            " bytes: name the node type shorter");
    }
    if (node.job) holder_of[node.name] = *node.job;
  }
  validate_held_types(problem, job_index);

  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocatableJob& job = problem.jobs[j];
    if (!job.batch_host) continue;
    const auto holder = holder_of.find(*job.batch_host);
    if (holder == holder_of.end() || holder->second != job.id) {
      throw InputError("jobs[" + std::to_string(j) + "].batch_host",
                       "node \"" + *job.batch_host + "\" is not held by job \"" + job.id + "\"");
    }
  }
}

}  // namespace gaptrain::allocator
