#include "status.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "gaptrain/scaling_curve_json.hpp"
#include "goodput_json.hpp"

namespace gaptrain::daemon {

namespace {

// The node types of `nodes`, each once in the order met, joined by '+' ("a100+v100").
std::string types_held(const std::vector<std::string>& nodes, const core::NodeTypes& types) {
  std::vector<std::string> seen;
  for (const std::string& node : nodes) {
    const std::string& type = types.of(node);
    if (std::find(seen.begin(), seen.end(), type) == seen.end()) seen.push_back(type);
  }
  std::string joined;
  for (const std::string& type : seen) joined += (joined.empty() ? "" : "+") + type;
  return joined;
}

// {"source": "given"|"assumed"|"learned", "points": [[nodes, samples_per_s], ...]}
Json::Value curve_json(core::Source source, const ScalingCurve& curve) {
  Json::Value json(Json::objectValue);
  json["source"] = std::string(to_string(source));
  json["points"] = curve_to_json(curve);
  return json;
}

template <typename T>
Json::Value or_null(const std::optional<T>& value) {
  return value ? Json::Value(*value) : Json::Value(Json::nullValue);
}

Json::Value epoch(std::int64_t seconds) {
  return Json::Value(Json::Int64{seconds});
}

Json::Value string_array(const std::vector<std::string>& strings) {
  Json::Value array(Json::arrayValue);
  for (const std::string& s : strings) array.append(s);
  return array;
}

}  // namespace

Json::Value status_json(const core::Snapshot& snapshot, const std::vector<core::Hole>& holes,
                        const core::ElasticJobs& elastic, const EventCounts& events,
                        std::optional<std::int64_t> last_poll) {
  Json::Value status(Json::objectValue);

  Json::Value hole_array(Json::arrayValue);
  for (const core::Hole& hole : holes) {
    Json::Value h(Json::objectValue);
    h["node"] = hole.node;
    h["since"] = epoch(hole.since);
    h["predicted_end"] =
        hole.predicted_end ? epoch(*hole.predicted_end) : Json::Value(Json::nullValue);
    h["next_job"] = or_null(hole.next_job);
    h["reservation"] = or_null(hole.reservation);
    hole_array.append(h);
  }
  status["holes"] = hole_array;

  // Which running jobs sit on which node, in one pass over the jobs.
  std::map<std::string, Json::Value> jobs_on;
  for (const core::Job& job : snapshot.jobs) {
    if (!holds_nodes(job)) continue;
    for (const std::string& node : job.nodes) {
      Json::Value& list = jobs_on[node];
      if (list.isNull()) list = Json::Value(Json::arrayValue);
      list.append(job.id);
    }
  }
  Json::Value node_array(Json::arrayValue);
  for (const core::Node& node : snapshot.nodes) {
    Json::Value n(Json::objectValue);
    n["name"] = node.name;
    n["state"] = std::string(to_string(node.state));
    const auto it = jobs_on.find(node.name);
    n["jobs"] = it == jobs_on.end() ? Json::Value(Json::arrayValue) : it->second;
    node_array.append(n);
  }
  status["nodes"] = node_array;

  Json::Value job_array(Json::arrayValue);
  const core::JobIndex slurm_jobs(snapshot);
  const core::NodeTypes node_types(snapshot);
  for (const auto& [id, job] : elastic.jobs()) {
    Json::Value j(Json::objectValue);
    j["job_id"] = id;
    j["user"] = job.given.user;
    // Which elastic partition plans it (several may be configured); "" when Slurm lists it not.
    const core::Job* slurm_job = slurm_jobs.find(id);
    j["partition"] = slurm_job != nullptr ? slurm_job->partition : std::string();
    j["nodes"] = string_array(job.nodes);
    j["batch_host"] = job.batch_host;
    j["min_nodes"] = job.given.min_nodes;
    j["max_nodes"] = job.given.max_nodes;
    if (!job.given.allowed_sizes.empty()) {  // only some counts (--elastic=2-8:2)
      Json::Value& allowed = j["allowed_sizes"] = Json::Value(Json::arrayValue);
      for (const int nodes : job.given.allowed_sizes) allowed.append(nodes);
    }
    j["curve"] = curve_json(job.curve_source, job.curve);
    if (!job.curves.empty()) {  // node types: the types it runs on, a curve each
      Json::Value& curves = j["curves"] = Json::Value(Json::objectValue);
      for (const auto& [type, typed] : job.curves)
        curves[type] = curve_json(typed.source, typed.curve);
    }
    j["type"] = job.given.mix_types ? types_held(job.nodes, node_types) : job.held_type;
    if (job.given.mix_types) j["mix_types"] = true;  // its nodes may be of several types
    j["costs_source"] = std::string(to_string(job.costs_source));
    j["up_cost_s"] = job.up_cost_s;
    j["down_cost_s"] = job.down_cost_s;
    j["running"] = string_array(job.running);
    Json::Value satellites(Json::objectValue);
    for (const auto& [node, satellite] : job.satellites) satellites[node] = satellite;
    j["satellites"] = satellites;
    j["samples_done"] = or_null(job.samples_done);
    j["reported_at"] = job.reported_at ? epoch(*job.reported_at) : Json::Value(Json::nullValue);
    const std::optional<core::NoiseScale> phi = noise_scale_of(job);
    put_goodput_json(j, job.given.batch, phi ? std::optional(phi->value) : std::nullopt,
                     phi ? to_string(phi->source) : "");
    job_array.append(j);
  }
  status["elastic_jobs"] = job_array;

  Json::Value counts(Json::objectValue);
  counts["accepted"] = Json::UInt64{events.accepted};
  counts["rejected"] = Json::UInt64{events.rejected};
  status["events"] = counts;
  status["last_poll"] = last_poll ? epoch(*last_poll) : Json::Value(Json::nullValue);
  return status;
}

Json::Value queue_json(const std::vector<std::pair<std::uint32_t, std::string>>& waiting,
                       const core::Snapshot& snapshot, std::optional<std::uint32_t> only_uid) {
  Json::Value queue(Json::arrayValue);
  const core::JobIndex jobs(snapshot);
  for (const auto& [job_id, reason] : waiting) {
    const core::Job* job = jobs.find(job_id);
    if (only_uid && (job == nullptr || job->user_id != *only_uid)) continue;
    Json::Value entry(Json::objectValue);
    entry["job_id"] = job_id;
    entry["reason"] = reason;
    queue.append(entry);
  }
  return queue;
}

}  // namespace gaptrain::daemon
