#include "status_privacy.hpp"

#include <json/value.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace gaptrain::daemon {

namespace {

class Owners {
 public:
  Owners(const core::Snapshot& snapshot, const core::ElasticJobs& elastic) {
    for (const core::Job& job : snapshot.jobs) uid_of_.try_emplace(job.id, job.user_id);
    for (const auto& [id, job] : elastic.jobs()) uid_of_.try_emplace(id, job.uid);
  }
  bool owns(uid_t uid, const Json::Value& job_id) const {
    if (!job_id.isUInt()) return false;
    const auto it = uid_of_.find(job_id.asUInt());
    return it != uid_of_.end() && it->second == uid;
  }

 private:
  std::unordered_map<std::uint32_t, uid_t> uid_of_;
};

// Keeps the elements of `array` for which `keep` holds.
template <typename Keep>
void keep_if(Json::Value& array, Keep keep) {
  if (!array.isArray()) return;
  Json::Value kept(Json::arrayValue);
  for (const Json::Value& element : array) {
    if (keep(element)) kept.append(element);
  }
  array = kept;
}

void hide_other_jobs(Json::Value& status, const Owners& owners, uid_t uid) {
  const auto own = [&](const Json::Value& id) { return owners.owns(uid, id); };
  for (Json::Value& node : status["nodes"]) keep_if(node["jobs"], own);
  for (Json::Value& hole : status["holes"]) {
    if (!hole["next_job"].isNull() && !own(hole["next_job"])) hole["next_job"] = Json::nullValue;
  }
  keep_if(status["elastic_jobs"], [&](const Json::Value& job) { return own(job["job_id"]); });
  if (!status.isMember("actions")) return;
  Json::Value& actions = status["actions"];
  keep_if(actions["draining"], [&](const Json::Value& drain) { return own(drain["job_id"]); });
  for (Json::Value& drain : actions["draining"]) {
    if (!drain["waiting_job"].isNull() && !own(drain["waiting_job"])) {
      drain["waiting_job"] = Json::nullValue;
    }
  }
  keep_if(actions["retrying"], [&](const Json::Value& retry) { return own(retry["job_id"]); });
}

}  // namespace

std::optional<std::string> job_view_refusal(std::uint32_t job_id, uid_t owner,
                                            const core::PrivateData& private_data,
                                            const StatusViewer& viewer) {
  if (viewer.privileged || !private_data.jobs || viewer.uid == owner) return std::nullopt;
  return "job " + std::to_string(job_id) + " is not yours: Slurm's PrivateData=jobs shows a job " +
         "to its owner, root and SlurmUser only (uid " + std::to_string(viewer.uid) + ")";
}

void apply_private_data(Json::Value& status, const core::Snapshot& snapshot,
                        const core::ElasticJobs& elastic, const core::PrivateData& private_data,
                        const StatusViewer& viewer) {
  if (viewer.privileged) return;
  if (private_data.jobs) hide_other_jobs(status, Owners(snapshot, elastic), viewer.uid);
  if (private_data.nodes) {
    status["nodes"] = Json::Value(Json::arrayValue);
    status["holes"] = Json::Value(Json::arrayValue);
  }
  if (private_data.reservations) {
    for (Json::Value& hole : status["holes"]) hole["reservation"] = Json::nullValue;
  }
}

}  // namespace gaptrain::daemon
