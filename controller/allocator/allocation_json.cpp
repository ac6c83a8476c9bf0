#include "allocator/allocation_json.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <span>
#include <utility>

#include "gaptrain/batch_range_json.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/scaling_curve_json.hpp"

namespace gaptrain::allocator {

namespace {

// Every parse function below reports fields relative to the value it was handed; callers
// re-anchor with InputError::under(), so "curve[1]" becomes "jobs[0].curve[1]" on the way out.

constexpr std::array<std::string_view, 6> kTopKeys = {"horizon_s", "objective", "fair_p",
                                                      "nodes",     "jobs",      "solver"};
constexpr std::array<std::string_view, 4> kNodeKeys = {"name", "job", "hole_end_s", "type"};
constexpr std::array<std::string_view, 3> kBatchKeys = {"tuned", "max", "max_per_node"};
constexpr std::array<std::string_view, 13> kJobKeys = {
    "id",          "min_nodes",     "max_nodes",  "curve",  "curves",
    "up_cost_s",   "down_cost_s",   "batch_host", "weight", "batch",
    "noise_scale", "allowed_sizes", "mix_types"};
constexpr std::array<std::string_view, 4> kSolverKeys = {"time_limit_s", "mip_gap",
                                                         "max_hole_classes", "max_core_options"};

std::string index_field(std::string_view array, Json::ArrayIndex i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

std::optional<std::string> optional_string(const Json::Value& object, std::string_view key) {
  const Json::Value* value = json_member(object, key);
  if (value == nullptr || value->isNull()) return std::nullopt;
  if (!value->isString()) throw_json_type_error(std::string(key), "a string or null", *value);
  return value->asString();
}

// Applies `parse` to each element of the array `object[key]`, re-anchoring errors under
// "key[i]".
template <typename T, typename Parse>
std::vector<T> parse_array(const Json::Value& object, std::string_view key, Parse parse) {
  const Json::Value& array = json_required(object, key);
  json_array(array, std::string(key));
  std::vector<T> items;
  items.reserve(array.size());
  for (Json::ArrayIndex i = 0; i < array.size(); ++i) {
    try {
      items.push_back(parse(array[i]));
    } catch (const InputError& e) {
      throw e.under(index_field(key, i));
    }
  }
  return items;
}

AllocatableNode parse_node(const Json::Value& value) {
  json_object(value, "");
  reject_unknown_json_keys(value, kNodeKeys);
  AllocatableNode node;
  node.name = json_string(json_required(value, "name"), "name");
  node.job = optional_string(value, "job");
  if (const Json::Value* hole_end = json_member(value, "hole_end_s");
      hole_end != nullptr && !hole_end->isNull()) {
    if (!hole_end->isNumeric()) throw_json_type_error("hole_end_s", "a number or null", *hole_end);
    node.hole_end_s = hole_end->asDouble();
  }
  node.type = optional_string(value, "type").value_or("");  // null or absent: the default type
  return node;
}

ScalingCurve parse_curve(const Json::Value& value) {
  json_array(value, "curve");
  std::vector<ScalingCurve::Point> points = curve_points_from_json(value, "curve");
  return ScalingCurve(std::move(points));  // throws InputError("curve[i]") on a bad curve
}

// {"TYPE": [[nodes, samples_per_s], ...], ...}: the job's curve on each node type it runs on.
std::map<std::string, ScalingCurve> parse_curves(const Json::Value& value) {
  json_object(value, "curves");
  if (value.empty()) {
    throw InputError("curves",
                     "must name at least one node type (leave it out, and give "
                     "\"curve\", to run on every type)");
  }
  std::map<std::string, ScalingCurve> curves;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string type = it.name();
    try {
      curves.emplace(type, parse_curve(*it));
    } catch (const InputError& e) {
      throw e.under("curves[\"" + type + "\"]");
    }
  }
  return curves;
}

// "curve" (every node type) or "curves" (per type), exactly one of them.
void parse_job_curves(const Json::Value& value, AllocatableJob& job) {
  const Json::Value* curves = json_member(value, "curves");
  if (curves != nullptr && curves->isNull()) curves = nullptr;
  if (curves == nullptr) {
    job.curve = parse_curve(json_required(value, "curve"));
    return;
  }
  if (json_member(value, "curve") != nullptr) {
    throw InputError("curves",
                     "give either \"curve\" (the same on every node type) or "
                     "\"curves\" (per type; name \"\" for the default type), not both");
  }
  job.curves = parse_curves(*curves);
}

// {"tuned": M0, "max": MAX, "max_per_node": PERNODE (optional, 0: tuned / min_nodes)}
BatchRange parse_batch(const Json::Value& value) {
  json_object(value, "batch");
  reject_unknown_json_keys(value, kBatchKeys, "batch.");
  BatchRange batch;
  batch.tuned = json_int(json_required(value, "tuned"), "batch.tuned");
  batch.max = json_int(json_required(value, "max"), "batch.max");
  if (const Json::Value* v = json_member(value, "max_per_node")) {
    batch.max_per_node = json_int(*v, "batch.max_per_node");
  }
  return batch;
}

// [2, 4, 8]: sorted and without repeats, as AllocatableJob keeps them (validate() checks the
// values).
std::vector<int> parse_allowed_sizes(const Json::Value& value) {
  json_array(value, "allowed_sizes");
  if (value.empty()) {
    throw InputError("allowed_sizes",
                     "must name at least one node count (leave it out to allow every count)");
  }
  std::vector<int> sizes;
  sizes.reserve(value.size());
  for (Json::ArrayIndex i = 0; i < value.size(); ++i) {
    sizes.push_back(json_int(value[i], index_field("allowed_sizes", i)));
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// min_nodes or max_nodes: required, unless allowed sizes are given, whose smallest (largest)
// then stands in.
int node_bound(const Json::Value& job, std::string_view key, const std::vector<int>& sizes,
               int from_sizes) {
  if (const Json::Value* value = json_member(job, key)) return json_int(*value, std::string(key));
  if (sizes.empty()) throw InputError(std::string(key), "required key is missing");
  return from_sizes;
}

AllocatableJob parse_job(const Json::Value& value) {
  json_object(value, "");
  reject_unknown_json_keys(value, kJobKeys);
  AllocatableJob job;
  job.id = json_string(json_required(value, "id"), "id");
  if (const Json::Value* sizes = json_member(value, "allowed_sizes");
      sizes != nullptr && !sizes->isNull()) {
    job.allowed_sizes = parse_allowed_sizes(*sizes);
  }
  const std::vector<int>& sizes = job.allowed_sizes;
  job.min_nodes = node_bound(value, "min_nodes", sizes, sizes.empty() ? 0 : sizes.front());
  job.max_nodes = node_bound(value, "max_nodes", sizes, sizes.empty() ? 0 : sizes.back());
  parse_job_curves(value, job);
  if (const Json::Value* mix = json_member(value, "mix_types"); mix != nullptr && !mix->isNull()) {
    if (!mix->isBool()) throw_json_type_error("mix_types", "true or false", *mix);
    job.mix_types = mix->asBool();  // (validate() refuses it with per-type curves)
  }
  job.up_cost_s = json_number(json_required(value, "up_cost_s"), "up_cost_s");
  job.down_cost_s = json_number(json_required(value, "down_cost_s"), "down_cost_s");
  job.batch_host = optional_string(value, "batch_host");
  if (const Json::Value* weight = json_member(value, "weight")) {
    job.weight = json_number(*weight, "weight");
  }
  if (const Json::Value* batch = json_member(value, "batch");
      batch != nullptr && !batch->isNull()) {
    job.batch = parse_batch(*batch);
  }
  if (const Json::Value* phi = json_member(value, "noise_scale");
      phi != nullptr && !phi->isNull()) {
    job.noise_scale = json_number(*phi, "noise_scale");
  }
  return job;
}

SolverOptions parse_solver(const Json::Value& value) {
  json_object(value, "solver");
  try {
    reject_unknown_json_keys(value, kSolverKeys);
    SolverOptions solver;
    if (const Json::Value* v = json_member(value, "time_limit_s")) {
      solver.time_limit_s = json_number(*v, "time_limit_s");
    }
    if (const Json::Value* v = json_member(value, "mip_gap")) {
      solver.mip_gap = json_number(*v, "mip_gap");
    }
    if (const Json::Value* v = json_member(value, "max_core_options")) {
      solver.max_core_options = json_int(*v, "max_core_options");
    }
    if (const Json::Value* v = json_member(value, "max_hole_classes")) {
      solver.max_hole_classes = json_int(*v, "max_hole_classes");
    }
    return solver;
  } catch (const InputError& e) {
    throw e.under("solver");
  }
}

// Finite numbers as themselves; NaN and infinities, which JSON cannot carry, as null.
Json::Value number_or_null(double value) {
  return std::isfinite(value) ? Json::Value(value) : Json::Value(Json::nullValue);
}

Json::Value string_or_null(const std::optional<std::string>& value) {
  return value ? Json::Value(*value) : Json::Value(Json::nullValue);
}

}  // namespace

AllocationProblem problem_from_json(const Json::Value& document) {
  if (!document.isObject()) {
    throw_json_type_error("", "a JSON object at the top level", document);
  }
  reject_unknown_json_keys(document, kTopKeys);
  AllocationProblem problem;
  if (const Json::Value* horizon = json_member(document, "horizon_s")) {
    problem.horizon_s = json_number(*horizon, "horizon_s");
  }
  if (const Json::Value* objective = json_member(document, "objective")) {
    const std::string name = json_string(*objective, "objective");
    const std::optional<Objective> parsed = objective_from_string(name);
    if (!parsed) {
      throw InputError("objective", "unknown objective " + describe_json(*objective) +
                                        " (allowed: throughput, speedup, fair)");
    }
    problem.objective = *parsed;
  }
  if (const Json::Value* fair_p = json_member(document, "fair_p")) {
    problem.fair_p = json_number(*fair_p, "fair_p");
  }
  problem.nodes = parse_array<AllocatableNode>(document, "nodes", parse_node);
  problem.jobs = parse_array<AllocatableJob>(document, "jobs", parse_job);
  if (const Json::Value* solver = json_member(document, "solver")) {
    problem.solver = parse_solver(*solver);
  }
  validate(problem);
  return problem;
}

AllocationProblem parse_problem(std::string_view text) {
  return problem_from_json(parse_strict_json(text));
}

Json::Value problem_to_json(const AllocationProblem& problem) {
  Json::Value document(Json::objectValue);
  document["horizon_s"] = number_or_null(problem.horizon_s);
  document["objective"] = std::string(to_string(problem.objective));
  if (problem.objective == Objective::fair) document["fair_p"] = number_or_null(problem.fair_p);
  Json::Value& nodes = document["nodes"] = Json::Value(Json::arrayValue);
  for (const AllocatableNode& node : problem.nodes) {
    Json::Value& n = nodes.append(Json::Value(Json::objectValue));
    n["name"] = node.name;
    n["job"] = string_or_null(node.job);
    n["hole_end_s"] = node.hole_end_s ? number_or_null(*node.hole_end_s) : Json::Value();
    if (!node.type.empty()) n["type"] = node.type;
  }
  Json::Value& jobs = document["jobs"] = Json::Value(Json::arrayValue);
  for (const AllocatableJob& job : problem.jobs) {
    Json::Value& j = jobs.append(Json::Value(Json::objectValue));
    j["id"] = job.id;
    j["min_nodes"] = job.min_nodes;
    j["max_nodes"] = job.max_nodes;
    if (job.curves.empty()) {
      j["curve"] = curve_to_json(job.curve);
    } else {
      Json::Value& curves = j["curves"] = Json::Value(Json::objectValue);
      for (const auto& [type, curve] : job.curves) curves[type] = curve_to_json(curve);
    }
    if (job.mix_types) j["mix_types"] = true;
    j["up_cost_s"] = number_or_null(job.up_cost_s);
    j["down_cost_s"] = number_or_null(job.down_cost_s);
    j["batch_host"] = string_or_null(job.batch_host);
    j["weight"] = number_or_null(job.weight);
    if (job.batch) j["batch"] = batch_range_to_json(*job.batch);
    if (job.noise_scale) j["noise_scale"] = number_or_null(*job.noise_scale);
    if (!job.allowed_sizes.empty()) {
      Json::Value& sizes = j["allowed_sizes"] = Json::Value(Json::arrayValue);
      for (int size : job.allowed_sizes) sizes.append(size);
    }
  }
  Json::Value& solver = document["solver"] = Json::Value(Json::objectValue);
  solver["time_limit_s"] = number_or_null(problem.solver.time_limit_s);
  solver["mip_gap"] = number_or_null(problem.solver.mip_gap);
  solver["max_hole_classes"] = problem.solver.max_hole_classes;
  solver["max_core_options"] = problem.solver.max_core_options;
  return document;
}

Json::Value result_to_json(const AllocationResult& result) {
  Json::Value document(Json::objectValue);
  document["status"] = std::string(to_string(result.model_status));
  document["objective"] = number_or_null(result.objective);
  document["best_bound"] = number_or_null(result.best_bound);
  Json::Value& allocation = document["allocation"] = Json::Value(Json::objectValue);
  for (const auto& [job, nodes] : result.allocation) {
    Json::Value& list = allocation[job] = Json::Value(Json::arrayValue);
    for (const std::string& node : nodes) list.append(node);
  }
  document["solve_ms"] = number_or_null(result.solve_ms);
  if (!result.message.empty()) document["message"] = result.message;
  return document;
}

namespace {

bool has_non_finite(const Json::Value& value) {
  if (value.isDouble()) return !std::isfinite(value.asDouble());
  if (!value.isArray() && !value.isObject()) return false;
  for (const Json::Value& item : value) {
    if (has_non_finite(item)) return true;
  }
  return false;
}

// `value` with every infinite or NaN number replaced by null.
Json::Value with_non_finite_as_null(const Json::Value& value) {
  if (value.isDouble() && !std::isfinite(value.asDouble())) return Json::Value();
  Json::Value copy = value;
  if (value.isArray()) {
    for (Json::ArrayIndex i = 0; i < value.size(); ++i) copy[i] = with_non_finite_as_null(value[i]);
  } else if (value.isObject()) {
    for (const std::string& key : value.getMemberNames()) {
      copy[key] = with_non_finite_as_null(value[key]);
    }
  }
  return copy;
}

}  // namespace

std::string to_json_text(const Json::Value& value, bool pretty) {
  // jsoncpp writes infinity as 1e+9999, which no JSON reader takes.
  if (has_non_finite(value)) return to_json_text(with_non_finite_as_null(value), pretty);
  Json::StreamWriterBuilder builder;
  builder["indentation"] = pretty ? "  " : "";
  builder["enableYAMLCompatibility"] = pretty;  // '"key": value' rather than '"key" : value'
  builder["precision"] = 15;
  builder["precisionType"] = "significant";
  builder["commentStyle"] = "None";
  return Json::writeString(builder, value);
}

}  // namespace gaptrain::allocator
