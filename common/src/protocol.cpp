#include "gaptrain/protocol.hpp"

#include <json/json.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>

#include "gaptrain/batch_range_json.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/parse_number.hpp"
#include "gaptrain/scaling_curve_json.hpp"

namespace gaptrain::protocol {

namespace {

// Names travel into log lines and Slurm commands on the daemon side, so they are bounded
// (bounds.hpp) and must be one printable token.
using bounds::kMaxNameBytes;

constexpr std::array<std::string_view, 4> kNodeFreedKeys = {"v", "type", "job_id", "node"};
constexpr std::array<std::string_view, 5> kNodeTakenKeys = {"v", "type", "job_id", "node",
                                                            "elastic"};
constexpr std::array<std::string_view, 16> kRegisterKeys = {
    "v",           "type",          "job_id",    "user",        "batch_host", "min_nodes",
    "max_nodes",   "curve",         "up_cost_s", "down_cost_s", "notice_s",   "batch",
    "noise_scale", "allowed_sizes", "curves",    "mix_types"};
// A job names at most this many node types (a site has a handful: GPU generations, CPU-only).
constexpr Json::ArrayIndex kMaxCurveTypes = 64;
constexpr std::array<std::string_view, 3> kBatchRangeKeys = {"tuned", "max", "max_per_node"};
constexpr std::array<std::string_view, 2> kStatusKeys = {"v", "type"};
constexpr std::array<std::string_view, 3> kJobKeys = {"v", "type", "job_id"};
constexpr std::array<std::string_view, 3> kOperationKeys = {"v", "type", "operation"};
constexpr std::array<std::string_view, 10> kLauncherKeys = {
    "v",          "type",     "job_id",  "running", "drained", "samples_done", "progress_time",
    "world_size", "grad_sqr", "grad_var"};
constexpr std::array<std::string_view, 2> kLaunchReplyKeys = {"ok", "launch"};
constexpr std::array<std::string_view, 6> kLaunchKeys = {"nodes",  "drain", "allocations",
                                                         "notice", "batch", "home"};
constexpr std::array<std::string_view, 5> kInstructedBatchKeys = {"tuned", "global", "per_node",
                                                                  "accumulation", "lr_gain"};
// A job spans at most this many nodes: bounds what one request makes the daemon hold.
constexpr Json::ArrayIndex kMaxNodeList = 65536;

// The member `key` of `object`, or null when it is absent or null (optional keys).
// A member that is absent or null: nullptr.
const Json::Value* optional_member(const Json::Value& object, std::string_view key) {
  const Json::Value* value = json_member(object, key);
  return value != nullptr && !value->isNull() ? value : nullptr;
}

std::uint32_t job_id_value(const Json::Value& object) {
  const Json::Value& value = json_required(object, "job_id");
  // isUInt() is exactly "fits in 32 bits", the width of a Slurm job id.
  if (!value.isUInt())
    throw_json_type_error("job_id", "an integer between 1 and 4294967295", value);
  const std::uint32_t id = value.asUInt();
  if (id == 0) throw InputError("job_id", "must be positive, got 0");
  return id;
}

// A node or user name: one token, so it cannot smuggle spaces or newlines into logs, Slurm
// host lists or command lines.
std::string name_of(const Json::Value& value, const std::string& field) {
  if (!value.isString()) throw_json_type_error(field, "a string", value);
  std::string name = value.asString();
  if (name.empty()) throw InputError(field, "must not be empty");
  if (name.size() > kMaxNameBytes) {
    throw InputError(field, "longer than " + std::to_string(kMaxNameBytes) + " bytes");
  }
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20U || byte == 0x7FU) {
      throw InputError(
          field, "must not contain whitespace or control characters, got " + describe_json(value));
    }
  }
  return name;
}

std::string name_value(const Json::Value& object, std::string_view key) {
  return name_of(json_required(object, key), std::string(key));
}

// A list of distinct node names: a node twice would mean two steps on one node, or two acks.
std::vector<std::string> node_list_value(const Json::Value& object, std::string_view key,
                                         const std::string& prefix = "") {
  const std::string field = prefix + std::string(key);
  const Json::Value* found = object.find(key.data(), key.data() + key.size());
  if (found == nullptr) throw InputError(field, "required key is missing");
  const Json::Value& value = *found;
  if (!value.isArray()) throw_json_type_error(field, "an array of node names", value);
  if (value.size() > kMaxNodeList) {
    throw InputError(field, "more than " + std::to_string(kMaxNodeList) + " nodes");
  }
  std::vector<std::string> nodes;
  nodes.reserve(value.size());
  for (Json::ArrayIndex i = 0; i < value.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    std::string node = name_of(value[i], item);
    if (std::find(nodes.begin(), nodes.end(), node) != nodes.end()) {
      throw InputError(item, "node \"" + node + "\" is listed twice");
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// A node count no cluster has is a mistake, not "all nodes" (sbatch --elastic refuses it too).
std::string too_many_nodes(int nodes) {
  return "more nodes than any cluster has: " + std::to_string(nodes) + " (at most " +
         std::to_string(bounds::kMaxNodes) + ")";
}

std::optional<double> cost_value(const Json::Value& object, std::string_view key) {
  const std::string field(key);
  const Json::Value& value = json_required(object, key);
  if (value.isNull()) return std::nullopt;
  if (!value.isNumeric()) throw_json_type_error(field, "a number of seconds or null", value);
  const double cost = value.asDouble();
  if (!(cost >= 0.0 && cost <= bounds::kMaxSeconds)) {
    throw InputError(field, "must be a non-negative number of seconds up to ten years, got " +
                                describe_json(value));
  }
  return cost;
}

// A [[nodes, samples_per_s], ...] array as a curve, its errors named under `field`; an empty
// array is no curve.
std::optional<ScalingCurve> curve_of(const Json::Value& value, const std::string& field) {
  if (!value.isArray())
    throw_json_type_error(field, "an array of [nodes, samples_per_s] pairs", value);
  if (value.empty()) return std::nullopt;
  const std::vector<ScalingCurve::Point> points = curve_points_from_json(value, field);
  std::optional<ScalingCurve> curve;
  try {
    curve.emplace(points);
  } catch (const InputError& e) {  // named "curve[i]" by ScalingCurve
    if (field == "curve") throw;
    throw e.under(field);  // curves["a100"].curve[i]
  }
  // A job's own account of itself: bounded by what a node can do, not only by the allocator's
  // arithmetic (the curve's rule, bounds::kMaxSamplesPerS).
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& [nodes, rate] = points[i];
    if (rate > nodes * bounds::kMaxSamplesPerNodePerS) {
      throw InputError(field + "[" + std::to_string(i) + "][1]",
                       "is " + describe_json(value[static_cast<Json::ArrayIndex>(i)][1]) +
                           " samples/s on " + std::to_string(nodes) +
                           " nodes, more than 1e9 a node: measure the job's rate and give that");
    }
  }
  return curve;
}

// The registration's curve; empty (an empty array): the job's curve is learned online.
std::optional<ScalingCurve> curve_value(const Json::Value& object) {
  return curve_of(json_required(object, "curve"), "curve");
}

// The registration's "curves": {"TYPE": [[nodes, samples_per_s], ...]}, the job's curve on each
// node type it runs on; a type with an empty array is one it runs on, curve learned.
std::map<std::string, std::optional<ScalingCurve>> curves_value(const Json::Value& value) {
  if (!value.isObject() || value.empty() || value.size() > kMaxCurveTypes) {
    throw_json_type_error("curves",
                          "an object of 1 to " + std::to_string(kMaxCurveTypes) +
                              " node types, each with its [[nodes, samples_per_s], ...]",
                          value);
  }
  std::map<std::string, std::optional<ScalingCurve>> curves;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string type = it.name();
    const std::string field = "curves[\"" + type + "\"]";
    if (!type.empty()) name_of(Json::Value(type), field);  // one printable token, bounded
    curves.emplace(type, curve_of(*it, field));
  }
  return curves;
}

// The registration's batch range {"tuned","max","max_per_node"} (max_per_node optional).
BatchRange batch_range_value(const Json::Value& value) {
  if (!value.isObject()) {
    throw_json_type_error("batch", "an object {\"tuned\", \"max\", \"max_per_node\"}", value);
  }
  reject_unknown_json_keys(value, kBatchRangeKeys, "batch.");
  BatchRange range;
  range.tuned = json_int(json_required(value, "tuned"), "batch.tuned");
  range.max = json_int(json_required(value, "max"), "batch.max");
  if (const Json::Value* per_node = optional_member(value, "max_per_node")) {
    range.max_per_node = json_int(*per_node, "batch.max_per_node");
  }
  if (auto problem = batch_range_problem(range)) throw InputError("batch", *problem);
  return range;
}

// A finite number >= 0 (the gradient statistics, the noise scale); `max` bounds it.
double statistic_value(const Json::Value& value, const std::string& field, double max) {
  const double number = json_number(value, field);
  if (!(number >= 0.0 && number <= max)) {
    throw InputError(field, "must be a number from 0 to " + describe_json(Json::Value(max)) +
                                ", got " + describe_json(value));
  }
  return number;
}

// The registration's "allowed_sizes": node counts from min to max, smallest first, once each.
std::vector<int> allowed_sizes_value(const Json::Value& value, int min_nodes, int max_nodes) {
  if (!value.isArray() || value.size() > static_cast<Json::ArrayIndex>(kMaxAllowedSizes)) {
    throw_json_type_error(
        "allowed_sizes", "an array of at most " + std::to_string(kMaxAllowedSizes) + " node counts",
        value);
  }
  NodeSizes sizes{min_nodes, max_nodes, {}};
  for (Json::ArrayIndex i = 0; i < value.size(); ++i) {
    sizes.allowed.push_back(json_int(value[i], "allowed_sizes[" + std::to_string(i) + "]"));
  }
  if (const std::optional<std::string> problem = node_sizes_problem(sizes)) {
    throw InputError("allowed_sizes", *problem);
  }
  return sizes.allowed;
}

JobRegistration decode_body(const Json::Value& document, const JobRegistration& /*tag*/) {
  reject_unknown_json_keys(document, kRegisterKeys);
  JobRegistration r;
  r.job_id = job_id_value(document);
  r.user = name_value(document, "user");
  r.batch_host = name_value(document, "batch_host");
  r.min_nodes = json_int(json_required(document, "min_nodes"), "min_nodes");
  r.max_nodes = json_int(json_required(document, "max_nodes"), "max_nodes");
  if (r.min_nodes < 1) throw InputError("min_nodes", "must be >= 1");
  if (r.max_nodes > bounds::kMaxNodes) throw InputError("max_nodes", too_many_nodes(r.max_nodes));
  if (r.max_nodes < r.min_nodes) {
    throw InputError("max_nodes", "must be >= min_nodes (" + std::to_string(r.min_nodes) + ")");
  }
  // Optional: a job that runs at every count (or a plugin older than allowed sizes) leaves it out.
  if (const Json::Value* allowed = optional_member(document, "allowed_sizes")) {
    r.allowed_sizes = allowed_sizes_value(*allowed, r.min_nodes, r.max_nodes);
  }
  r.curve = curve_value(document);
  // Optional: a job that runs on every node type (or a plugin older than node types) leaves it out.
  if (const Json::Value* curves = optional_member(document, "curves")) {
    if (r.curve) {
      throw InputError("curves",
                       "give either \"curve\" (the same on every node type) or \"curves\" (per "
                       "type), not both");
    }
    r.curves = curves_value(*curves);
  }
  // Optional: a job that runs on one node type at a time leaves it out.
  if (const Json::Value* mix = optional_member(document, "mix_types")) {
    if (!mix->isBool()) throw_json_type_error("mix_types", "true or false", *mix);
    if (mix->asBool() && !r.curves.empty()) {
      throw InputError("mix_types",
                       "a job with a curve per node type runs on one type at a time: give one "
                       "curve (its rate on any mix of nodes) to mix types");
    }
    r.mix_types = mix->asBool();
  }
  r.up_cost_s = cost_value(document, "up_cost_s");
  r.down_cost_s = cost_value(document, "down_cost_s");
  // Optional: a plugin older than notices leaves it out.
  if (const Json::Value* notice = optional_member(document, "notice_s")) {
    const double seconds = json_number(*notice, "notice_s");
    if (!(seconds >= 0.0 && seconds <= kMaxNoticeS)) {
      throw InputError("notice_s", "must be a number of seconds from 0 to 86400 (a day), got " +
                                       describe_json(*notice));
    }
    r.notice_s = seconds;
  }
  // Optional: a job without a batch range (or a plugin older than goodput) leaves them out.
  if (const Json::Value* batch = optional_member(document, "batch")) {
    r.batch = batch_range_value(*batch);
  }
  if (const Json::Value* phi = optional_member(document, "noise_scale")) {
    r.noise_scale = statistic_value(*phi, "noise_scale", kMaxNoiseScale);
  }
  return r;
}

LauncherReport decode_body(const Json::Value& document, const LauncherReport& /*tag*/) {
  reject_unknown_json_keys(document, kLauncherKeys);
  LauncherReport r;
  r.job_id = job_id_value(document);
  r.running = node_list_value(document, "running");
  r.drained = node_list_value(document, "drained");
  const Json::Value& samples = json_required(document, "samples_done");
  if (!samples.isNull()) {
    if (!samples.isNumeric()) {
      throw_json_type_error("samples_done", "a number of samples or null", samples);
    }
    const double done = samples.asDouble();
    if (!std::isfinite(done) || done < 0.0 || done > bounds::kMaxSamplesDone) {
      throw InputError("samples_done", "must be a number from 0 to " +
                                           describe_json(Json::Value(bounds::kMaxSamplesDone)) +
                                           ", got " + describe_json(samples));
    }
    r.samples_done = done;
  }
  // Both optional: a launcher older than them leaves them out.
  if (const Json::Value* time = optional_member(document, "progress_time")) {
    const double t = json_number(*time, "progress_time");
    if (!std::isfinite(t) || t < 0.0 || t > bounds::kMaxTraceTimeS) {
      throw InputError("progress_time",
                       "must be a Unix time in seconds, got " + describe_json(*time));
    }
    r.progress_time = t;
  }
  if (const Json::Value* size = optional_member(document, "world_size")) {
    const int n = json_int(*size, "world_size");
    if (n < 1 || n > bounds::kMaxNodes * 64) {
      throw InputError("world_size",
                       "must be a positive count of workers, got " + describe_json(*size));
    }
    r.world_size = n;
  }
  // Optional: a training that measures no gradient statistics leaves them out. Any finite
  // value >= 0 is carried; which of them teach a noise scale is the daemon's business.
  if (const Json::Value* sqr = optional_member(document, "grad_sqr")) {
    r.grad_sqr = statistic_value(*sqr, "grad_sqr", std::numeric_limits<double>::max());
  }
  if (const Json::Value* var = optional_member(document, "grad_var")) {
    r.grad_var = statistic_value(*var, "grad_var", std::numeric_limits<double>::max());
  }
  return r;
}

InstructedBatch instructed_batch_value(const Json::Value& value) {
  if (!value.isObject()) {
    throw_json_type_error("launch.batch",
                          "an object {\"tuned\", \"global\", \"per_node\", \"accumulation\", "
                          "\"lr_gain\"}",
                          value);
  }
  reject_unknown_json_keys(value, kInstructedBatchKeys, "launch.batch.");
  InstructedBatch batch;
  batch.tuned = json_int(json_required(value, "tuned"), "launch.batch.tuned");
  if (batch.tuned < 1) throw InputError("launch.batch.tuned", "must be >= 1");
  const Json::Value& global = json_required(value, "global");
  if (!global.isInt64() || global.asInt64() < 1 ||
      global.asInt64() > std::int64_t{kMaxBatchSize} * bounds::kMaxNodes) {
    throw_json_type_error("launch.batch.global", "a positive number of samples", global);
  }
  batch.global = static_cast<long>(global.asInt64());
  batch.per_node = json_int(json_required(value, "per_node"), "launch.batch.per_node");
  if (batch.per_node < 1) throw InputError("launch.batch.per_node", "must be >= 1");
  batch.accumulation = json_int(json_required(value, "accumulation"), "launch.batch.accumulation");
  if (batch.accumulation < 1) throw InputError("launch.batch.accumulation", "must be >= 1");
  if (batch.global % (static_cast<long>(batch.per_node) * batch.accumulation) != 0) {
    throw InputError("launch.batch.global",
                     "must be a multiple of per_node * accumulation, got " + describe_json(global));
  }
  const Json::Value& gain = json_required(value, "lr_gain");
  batch.lr_gain = json_number(gain, "launch.batch.lr_gain");
  if (!(batch.lr_gain > 0.0 && std::isfinite(batch.lr_gain))) {
    throw InputError("launch.batch.lr_gain",
                     "must be a finite number > 0, got " + describe_json(gain));
  }
  return batch;
}

NodeFreed decode_body(const Json::Value& document, const NodeFreed& /*tag*/) {
  reject_unknown_json_keys(document, kNodeFreedKeys);
  NodeFreed m;
  m.job_id = job_id_value(document);
  m.node = name_value(document, "node");
  return m;
}

NodeTaken decode_body(const Json::Value& document, const NodeTaken& /*tag*/) {
  reject_unknown_json_keys(document, kNodeTakenKeys);
  NodeTaken m;
  m.job_id = job_id_value(document);
  m.node = name_value(document, "node");
  const Json::Value& elastic = json_required(document, "elastic");
  if (!elastic.isBool()) throw_json_type_error("elastic", "true or false", elastic);
  m.elastic = elastic.asBool();
  return m;
}

StatusRequest decode_body(const Json::Value& document, const StatusRequest& /*tag*/) {
  reject_unknown_json_keys(document, kStatusKeys);
  return StatusRequest{};
}

JobRequest decode_body(const Json::Value& document, const JobRequest& /*tag*/) {
  reject_unknown_json_keys(document, kJobKeys);
  return JobRequest{job_id_value(document)};
}

OperationRequest decode_body(const Json::Value& document, const OperationRequest& /*tag*/) {
  reject_unknown_json_keys(document, kOperationKeys);
  const Json::Value& operation = document["operation"];
  if (!operation.isString() ||
      (operation.asString() != "pause" && operation.asString() != "resume" &&
       operation.asString() != "drain")) {
    throw InputError("operation",
                     "must be \"pause\", \"resume\" or \"drain\", got " + describe_json(operation));
  }
  return OperationRequest{operation.asString()};
}

// The request whose kType is `name`, found by walking Request's alternatives: adding a type to
// the variant (with its kType and a decode_body) is all it takes.
template <std::size_t... I>
Request decode_request(std::string_view name, const Json::Value& document,
                       std::index_sequence<I...> /*alternatives*/) {
  std::optional<Request> decoded;
  const bool known =
      ((name == std::variant_alternative_t<I, Request>::kType &&
        (decoded = decode_body(document, std::variant_alternative_t<I, Request>{}), true)) ||
       ...);
  if (known) return *std::move(decoded);
  std::string allowed;
  ((allowed += (I == 0 ? "" : ", ") + std::string(std::variant_alternative_t<I, Request>::kType)),
   ...);
  throw InputError("type", "unknown message type " + describe_json(Json::Value(std::string(name))) +
                               " (allowed: " + allowed + ")");
}

}  // namespace

std::optional<std::string> batch_range_problem(const BatchRange& range) {
  const std::string limit = std::to_string(kMaxBatchSize);
  if (range.tuned < 1 || range.tuned > kMaxBatchSize) {
    return "the tuned batch M0 must be from 1 to " + limit + " samples, got " +
           std::to_string(range.tuned);
  }
  if (range.max < range.tuned || range.max > kMaxBatchSize) {
    return "the largest batch MAX must be from M0 (" + std::to_string(range.tuned) + ") to " +
           limit + " samples, got " + std::to_string(range.max);
  }
  if (range.max_per_node < 0 || range.max_per_node > kMaxBatchSize) {
    return "the most samples a node holds PERNODE must be from 1 to " + limit +
           " (0 or left out: M0 over the fewest nodes), got " + std::to_string(range.max_per_node);
  }
  return std::nullopt;
}

std::optional<BatchRange> batch_range_from_text(std::string_view text) {
  const auto whole_number = [](std::string_view digits, int& out) {
    if (digits.empty() || digits.front() < '0' || digits.front() > '9') return false;
    const std::optional<int> number = parse_number<int>(digits);
    if (number) out = *number;
    return number.has_value();
  };
  BatchRange range;
  const std::size_t first = text.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = text.find(':', first + 1);
  if (!whole_number(text.substr(0, first), range.tuned)) return std::nullopt;
  if (second == std::string_view::npos) {
    return whole_number(text.substr(first + 1), range.max) ? std::optional(range) : std::nullopt;
  }
  if (!whole_number(text.substr(first + 1, second - first - 1), range.max) ||
      !whole_number(text.substr(second + 1), range.max_per_node) || range.max_per_node < 1) {
    return std::nullopt;
  }
  return range;
}

std::optional<std::string> noise_scale_problem(double phi) {
  if (phi >= 0.0 && phi <= kMaxNoiseScale) return std::nullopt;
  return "the noise scale must be a number of samples from 0 to 1e15, got " +
         describe_json(Json::Value(phi));
}

LaunchInstruction decode_launch_reply(std::string_view json) {
  const Json::Value document = parse_strict_json(json);
  if (!document.isObject()) throw_json_type_error("", "a JSON object", document);
  const Json::Value& ok = json_required(document, "ok");
  if (!ok.isBool()) throw_json_type_error("ok", "true or false", ok);
  if (!ok.asBool()) {
    // The daemon's refusal, passed on verbatim (it is already one line saying why).
    const Json::Value& error = document["error"];
    throw InputError("error", error.isString()
                                  ? error.asString()
                                  : std::string("the controller refused without a reason"));
  }
  reject_unknown_json_keys(document, kLaunchReplyKeys);
  const Json::Value& launch = json_object(json_required(document, "launch"), "launch");
  reject_unknown_json_keys(launch, kLaunchKeys, "launch.");
  LaunchInstruction instruction;
  instruction.nodes = node_list_value(launch, "nodes", "launch.");
  instruction.drain = node_list_value(launch, "drain", "launch.");
  for (std::size_t i = 0; i < instruction.drain.size(); ++i) {
    if (std::find(instruction.nodes.begin(), instruction.nodes.end(), instruction.drain[i]) ==
        instruction.nodes.end()) {
      throw InputError("launch.drain[" + std::to_string(i) + "]",
                       "node \"" + instruction.drain[i] + "\" is not one of launch.nodes");
    }
  }
  // Optional: a daemon without satellites may leave it out.
  if (launch.isMember("allocations")) {
    const Json::Value& allocations = launch["allocations"];
    if (!allocations.isObject()) {
      throw_json_type_error("launch.allocations", "an object of node: job id", allocations);
    }
    for (const std::string& node : allocations.getMemberNames()) {
      const std::string field = "launch.allocations." + node;
      const Json::Value& id = allocations[node];
      if (!id.isUInt() || id.asUInt() == 0) throw_json_type_error(field, "a job id", id);
      if (std::find(instruction.nodes.begin(), instruction.nodes.end(), node) ==
          instruction.nodes.end()) {
        throw InputError(field, "node \"" + node + "\" is not one of launch.nodes");
      }
      instruction.allocations[node] = id.asUInt();
    }
  }
  // Optional: a daemon older than notices leaves it out.
  if (launch.isMember("notice")) {
    const Json::Value& notice = launch["notice"];
    if (!notice.isObject()) {
      throw_json_type_error("launch.notice", "an object of node: Unix time", notice);
    }
    for (const std::string& node : notice.getMemberNames()) {
      const std::string field = "launch.notice." + node;
      const Json::Value& at = notice[node];
      if (!at.isNumeric() || !std::isfinite(at.asDouble()) || at.asDouble() < 0.0 ||
          at.asDouble() > bounds::kMaxTraceTimeS) {
        throw_json_type_error(field, "a Unix time in seconds", at);
      }
      if (std::find(instruction.nodes.begin(), instruction.nodes.end(), node) ==
          instruction.nodes.end()) {
        throw InputError(field, "node \"" + node + "\" is not one of launch.nodes");
      }
      instruction.notice[node] = at.asDouble();
    }
  }
  // Optional: a job without a batch range, or a daemon older than goodput, leaves it out.
  if (const Json::Value* batch = optional_member(launch, "batch")) {
    instruction.batch = instructed_batch_value(*batch);
  }
  // Optional: only a job at home has it (true).
  if (const Json::Value* home = optional_member(launch, "home")) {
    if (!home->isBool()) throw_json_type_error("launch.home", "true or false", *home);
    instruction.home = home->asBool();
  }
  return instruction;
}

Request decode(std::string_view json) {
  const Json::Value document = parse_strict_json(json);
  if (!document.isObject()) throw_json_type_error("", "a JSON object", document);

  const Json::Value& version = json_required(document, "v");
  if (!version.isInt()) throw_json_type_error("v", "an integer protocol version", version);
  if (version.asInt() != kVersion) {
    throw InputError("v", "unsupported protocol version " + std::to_string(version.asInt()) +
                              " (this side speaks " + std::to_string(kVersion) + ")");
  }
  const Json::Value& type = json_required(document, "type");
  if (!type.isString()) throw_json_type_error("type", "a string", type);
  const std::string name = type.asString();

  return decode_request(name, document, std::make_index_sequence<std::variant_size_v<Request>>());
}

std::string_view type_name(const Request& request) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, request);
}

}  // namespace gaptrain::protocol
