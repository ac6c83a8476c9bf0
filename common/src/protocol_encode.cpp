// Encoding the protocol's messages (protocol.hpp): each request as the plugin, the launcher and
// the CLI send it, and the daemon's launch instruction, one line of JSON each. protocol.cpp
// decodes them, checking every field.
#include <json/json.h>

#include <cmath>
#include <string>
#include <variant>

#include "gaptrain/batch_range_json.hpp"
#include "gaptrain/json_text.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/scaling_curve_json.hpp"

namespace gaptrain::protocol {

namespace {

// JSON cannot carry NaN or infinities; null makes decode() reject them rather than the writer
// emitting text no reader accepts.
Json::Value number_or_null(double value) {
  return std::isfinite(value) ? Json::Value(value) : Json::Value(Json::nullValue);
}

Json::Value to_json(const NodeFreed& m) {
  Json::Value v(Json::objectValue);
  v["job_id"] = m.job_id;
  v["node"] = m.node;
  return v;
}

Json::Value to_json(const NodeTaken& m) {
  Json::Value v(Json::objectValue);
  v["job_id"] = m.job_id;
  v["node"] = m.node;
  v["elastic"] = m.elastic;
  return v;
}

// A registration's curve; [] for none (learned online).
Json::Value curve_json(const std::optional<ScalingCurve>& curve) {
  return curve ? curve_to_json(*curve) : Json::Value(Json::arrayValue);
}

Json::Value to_json(const JobRegistration& m) {
  Json::Value v(Json::objectValue);
  v["job_id"] = m.job_id;
  v["user"] = m.user;
  v["batch_host"] = m.batch_host;
  v["min_nodes"] = m.min_nodes;
  v["max_nodes"] = m.max_nodes;
  if (!m.allowed_sizes.empty()) {
    Json::Value& allowed = v["allowed_sizes"] = Json::Value(Json::arrayValue);
    for (const int nodes : m.allowed_sizes) allowed.append(nodes);
  }
  v["curve"] = curve_json(m.curve);
  if (!m.curves.empty()) {
    Json::Value& curves = v["curves"] = Json::Value(Json::objectValue);
    for (const auto& [type, per_type] : m.curves) curves[type] = curve_json(per_type);
  }
  if (m.mix_types) v["mix_types"] = true;
  v["up_cost_s"] = m.up_cost_s ? number_or_null(*m.up_cost_s) : Json::Value();
  v["down_cost_s"] = m.down_cost_s ? number_or_null(*m.down_cost_s) : Json::Value();
  if (m.notice_s) v["notice_s"] = number_or_null(*m.notice_s);
  if (m.batch) v["batch"] = batch_range_to_json(*m.batch);
  if (m.noise_scale) v["noise_scale"] = number_or_null(*m.noise_scale);
  return v;
}

Json::Value to_json(const StatusRequest& /*unused*/) {
  Json::Value v(Json::objectValue);
  return v;
}

Json::Value to_json(const JobRequest& m) {
  Json::Value v(Json::objectValue);
  v["job_id"] = m.job_id;
  return v;
}

Json::Value to_json(const OperationRequest& m) {
  Json::Value v(Json::objectValue);
  v["operation"] = m.operation;
  return v;
}

Json::Value string_array(const std::vector<std::string>& strings) {
  Json::Value array(Json::arrayValue);
  for (const std::string& s : strings) array.append(s);
  return array;
}

Json::Value to_json(const LauncherReport& m) {
  Json::Value v(Json::objectValue);
  v["job_id"] = m.job_id;
  v["running"] = string_array(m.running);
  v["drained"] = string_array(m.drained);
  v["samples_done"] = m.samples_done ? number_or_null(*m.samples_done) : Json::Value();
  if (m.progress_time) v["progress_time"] = number_or_null(*m.progress_time);
  if (m.world_size) v["world_size"] = *m.world_size;
  if (m.grad_sqr) v["grad_sqr"] = number_or_null(*m.grad_sqr);
  if (m.grad_var) v["grad_var"] = number_or_null(*m.grad_var);
  return v;
}

// The instruction's batch: global = per_node * accumulation * some node count, lr_gain > 0.

}  // namespace

std::string encode(const Request& request) {
  Json::Value document = std::visit(
      [](const auto& m) {
        Json::Value v = to_json(m);
        v["type"] = std::string(std::decay_t<decltype(m)>::kType);
        return v;
      },
      request);
  document["v"] = kVersion;
  return one_line_json(document);
}

std::string encode_reply(const LaunchInstruction& instruction) {
  Json::Value document(Json::objectValue);
  document["ok"] = true;
  Json::Value& launch = document["launch"] = Json::Value(Json::objectValue);
  launch["nodes"] = string_array(instruction.nodes);
  launch["drain"] = string_array(instruction.drain);
  Json::Value& allocations = launch["allocations"] = Json::Value(Json::objectValue);
  for (const auto& [node, job_id] : instruction.allocations) allocations[node] = job_id;
  if (!instruction.notice.empty()) {
    Json::Value& notice = launch["notice"] = Json::Value(Json::objectValue);
    for (const auto& [node, at] : instruction.notice) notice[node] = number_or_null(at);
  }
  if (instruction.home) launch["home"] = true;
  if (instruction.batch) {
    Json::Value& batch = launch["batch"] = Json::Value(Json::objectValue);
    batch["tuned"] = instruction.batch->tuned;
    batch["global"] = Json::Int64{instruction.batch->global};
    batch["per_node"] = instruction.batch->per_node;
    batch["accumulation"] = instruction.batch->accumulation;
    batch["lr_gain"] = number_or_null(instruction.batch->lr_gain);
  }
  return one_line_json(document);
}

}  // namespace gaptrain::protocol
