#include "core/notice.hpp"

#include <algorithm>
#include <cmath>

#include "core/settings.hpp"

namespace gaptrain::core {

namespace {

// A notice's time that moved by less than this is the same notice (wall-clock rounding).
constexpr double kSameNoticeS = 1.0;

bool holds(const ElasticJob& job, const std::string& node) {
  return std::find(job.nodes.begin(), job.nodes.end(), node) != job.nodes.end();
}

}  // namespace

double notice_window_s(const ElasticJob& job, double max_notice_s) {
  return std::clamp(job.given.notice_s.value_or(kDefaultNoticeS), 0.0, std::max(0.0, max_notice_s));
}

Notices due_notices(const ElasticJobs& jobs, const std::map<std::string, double>& leaving,
                    const std::map<std::string, std::int64_t>& takeovers, double now_wall,
                    double max_notice_s) {
  Notices notices;
  if (max_notice_s <= 0.0) return notices;
  for (const auto& [job_id, job] : jobs.jobs()) {
    const double window = notice_window_s(job, max_notice_s);
    std::map<std::string, NodeNotice> due;
    for (const std::string& node : job.nodes) {
      if (const auto drain = leaving.find(node); drain != leaving.end()) {
        due[node] = {std::max(now_wall, drain->second), "drain requested"};
        continue;
      }
      const auto takeover = takeovers.find(node);
      if (takeover == takeovers.end()) continue;
      const double at = std::max(now_wall, static_cast<double>(takeover->second));
      if (at - now_wall <= window) due[node] = {at, "a regular job is planned there"};
    }
    if (!due.empty()) notices[job_id] = std::move(due);
  }
  return notices;
}

Notices steady_notices(const Notices& before, Notices after) {
  for (auto& [job_id, nodes] : after) {
    const auto old_job = before.find(job_id);
    if (old_job == before.end()) continue;
    for (auto& [node, notice] : nodes) {
      const auto old = old_job->second.find(node);
      if (old != old_job->second.end() && std::abs(old->second.at - notice.at) < kSameNoticeS) {
        notice.at = old->second.at;
      }
    }
  }
  return after;
}

Notes notice_changes(const Notices& before, const Notices& after, const ElasticJobs& jobs,
                     double now_wall) {
  Notes notes;
  static const std::map<std::string, NodeNotice> kNone;
  const auto of = [](const Notices& notices, std::uint32_t job_id) -> const auto& {
    const auto it = notices.find(job_id);
    return it == notices.end() ? kNone : it->second;
  };
  for (const auto& [job_id, nodes] : after) {
    const auto& old = of(before, job_id);
    for (const auto& [node, notice] : nodes) {
      const auto was = old.find(node);
      if (was != old.end() && was->second.at == notice.at) continue;
      notes.push_back(Note{NoteLevel::info,
                           "notice given",
                           {{"ACTION", "notice"},
                            {"JOB_ID", job_id},
                            {"NODE", node},
                            {"AT", seconds_text(notice.at)},
                            {"IN_S", seconds_text(notice.at - now_wall)},
                            {"REASON", notice.reason}}});
    }
  }
  for (const auto& [job_id, nodes] : before) {
    const auto job = jobs.jobs().find(job_id);
    if (job == jobs.jobs().end()) continue;  // ended: nothing to withdraw
    const auto& now_due = of(after, job_id);
    for (const auto& [node, notice] : nodes) {
      if (now_due.contains(node) || !holds(job->second, node)) continue;
      notes.push_back(Note{NoteLevel::info,
                           "notice withdrawn",
                           {{"ACTION", "notice"},
                            {"JOB_ID", job_id},
                            {"NODE", node},
                            {"REASON", "the plan changed: the node is no longer planned to go"}}});
    }
  }
  return notes;
}

}  // namespace gaptrain::core
