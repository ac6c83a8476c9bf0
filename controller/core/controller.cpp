#include "core/controller.hpp"

#include <map>
#include <utility>

#include "core/noise_scale.hpp"

namespace gaptrain::core {

namespace {

void note_holes(const HoleChanges& changed, Notes& notes) {
  for (const Hole& hole : changed.opened) {
    notes.push_back({NoteLevel::info,
                     "hole opened",
                     {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}}});
  }
  for (const Hole& hole : changed.end_changed) {
    notes.push_back({NoteLevel::debug,
                     "hole end changed",
                     {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}}});
  }
  for (const Hole& hole : changed.closed) {
    notes.push_back({NoteLevel::info,
                     "hole closed",
                     {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}}});
  }
}

}  // namespace

Controller::Controller(SlurmActions& slurm, CycleSettings cycle, const ResizerSettings& resizer,
                       std::optional<HistoryLimits> history)
    : resizer_(slurm, resizer), settings_(std::move(cycle)) {
  if (history) history_ = std::make_shared<JobHistory>(*history);
}

void Controller::set_settings(CycleSettings cycle, const ResizerSettings& resizer) {
  settings_ = std::move(cycle);
  resizer_.set_settings(resizer);
}

void Controller::set_history_limits(HistoryLimits limits) {
  if (history_) history_->set_limits(limits);
}

Notes Controller::observe(Snapshot snapshot, const Now& now, const SavedState* restore) {
  Notes notes;
  snapshot_ = std::move(snapshot);
  note_holes(observe_cluster(snapshot_, holes_, settings_), notes);
  if (restore != nullptr) this->restore(*restore, notes);
  const auto wall = static_cast<double>(now.wall);
  if (history_) history_->tick(wall, now.mono);
  const Refreshed refreshed = elastic_.refresh(snapshot_, now.mono, settings_.satellite_partition);
  for (const std::uint32_t job_id : refreshed.forgotten) {
    notes.push_back({NoteLevel::info, "elastic job ended, forgotten", {{"JOB_ID", job_id}}});
    if (history_) history_->ended(job_id, wall);
  }
  // Slurm freed these itself for regular jobs (satellite_qos): a reclaim gaptraind did not make.
  for (const auto& [job_id, nodes] : refreshed.preempted) {
    notes.push_back({NoteLevel::info,
                     "satellites preempted by Slurm for regular jobs",
                     {{"ACTION", "preempted"}, {"JOB_ID", job_id}, {"NODES", join_nodes(nodes)}}});
    const auto job = elastic_.jobs().find(job_id);
    if (history_ && job != elastic_.jobs().end()) {
      history_->resize(
          job_id, ResizeRecord{wall, ResizeKind::reclaim, "preempted by Slurm for a regular job",
                               job->second.nodes});
    }
  }
  follow_history(wall);
  return notes;
}

void Controller::restore(const SavedState& saved, Notes& notes) {
  // Jobs that still run are managed again; leases keep their users' limits.
  for (const SavedJob& job : saved.jobs) {
    const std::uint32_t id = job.registration.job_id;
    if (auto refused =
            elastic_.add(job.registration, snapshot_, settings_.planner.elastic_partitions,
                         job.registered_at, settings_.satellite_partition)) {
      notes.push_back({NoteLevel::info,
                       "saved elastic job not restored",
                       {{"JOB_ID", id}, {"REASON", *refused}}});
      continue;
    }
    elastic_.restore_learned(id, job.learned_curve, job.learned_costs, job.learned_noise_scale);
    const ElasticJob& elastic = elastic_.jobs().at(id);
    notes.push_back({NoteLevel::info,
                     "elastic job restored",
                     {{"JOB_ID", id},
                      {"USER", elastic.given.user},
                      {"NODES", join_nodes(elastic.nodes)},
                      {"CURVE", to_string(elastic.curve_source)},
                      {"COSTS", to_string(elastic.costs_source)},
                      {"UP_COST_S", seconds_text(elastic.up_cost_s)},
                      {"DOWN_COST_S", seconds_text(elastic.down_cost_s)}}});
  }
  std::map<std::uint32_t, std::uint32_t> limits;
  for (const auto& [id, minutes] : saved.user_limits) {
    if (find_job(snapshot_, id) != nullptr) limits[id] = minutes;
  }
  resizer_.restore_user_limits(limits);
}

std::optional<std::string> Controller::add(const protocol::JobRegistration& request,
                                           std::int64_t now) {
  return elastic_.add(request, snapshot_, settings_.planner.elastic_partitions, now,
                      settings_.satellite_partition);
}

bool Controller::report(const protocol::LauncherReport& report, const Now& now) {
  if (!elastic_.report(report, now.wall, now.mono)) return false;
  const ElasticJob& job = elastic_.jobs().at(report.job_id);
  if (!history_) return true;
  if (report.samples_done && job.samples_done == report.samples_done) {
    history_->tick(now.wall_precise > 0.0 ? now.wall_precise : static_cast<double>(now.wall),
                   now.mono);
    history_->progress(report.job_id, {report.progress_time.value_or(static_cast<double>(now.wall)),
                                       *report.samples_done, report.world_size});
  }
  follow_history(job, static_cast<double>(now.wall));
  return true;
}

CycleOutcome Controller::decide(const Now& now) {
  return cycle(snapshot_, holes_, elastic_, resizer_, now, settings_);
}

void Controller::record(const CycleOutcome& outcome, const Now& now) {
  if (!history_) return;
  history_->tick(static_cast<double>(now.wall), now.mono);
  for (const auto& [job_id, resize] : outcome.resizes) history_->resize(job_id, resize);
  follow_history(static_cast<double>(now.wall));
}

SavedState Controller::saved(Operation operation) const {
  SavedState state;
  for (const auto& [id, job] : elastic_.jobs()) state.jobs.push_back(saved_job(job));
  state.user_limits = resizer_.user_limits();
  state.operation = operation;
  return state;
}

void Controller::follow_history(const ElasticJob& job, double now) {
  if (!history_) return;
  history_->nodes(job.job_id, job.uid, job.given.user, static_cast<int>(job.nodes.size()), now);
  std::map<int, double> measured;
  if (job.learner && job.curve_source == Source::learned) measured = job.learner->measured_rates();
  std::vector<ScalingCurve::Point> assumed;
  for (const ScalingCurve::Point& point : job.curve.points()) {
    if (!measured.contains(point.nodes)) assumed.push_back(point);
  }
  history_->curve(job.job_id, std::move(measured), std::move(assumed), to_string(job.curve_source));
  const std::optional<NoiseScale> phi = noise_scale_of(job);
  history_->goodput(job.job_id, job.given.batch, phi ? std::optional(phi->value) : std::nullopt,
                    phi ? to_string(phi->source) : "");
}

void Controller::follow_history(double now) {
  if (!history_) return;
  for (const auto& [id, job] : elastic_.jobs()) follow_history(job, now);
  // Jobs admitted but not registered yet are Slurm's: their owner is known from it; those
  // neither managed nor pending or running any more have ended.
  std::vector<std::uint32_t> gone;
  for (const auto& [id, record] : history_->records()) {
    if (record.ended_at || elastic_.contains(id)) continue;
    const Job* job = find_job(snapshot_, id);
    if (job == nullptr || job->state == JobState::finished) {
      gone.push_back(id);
    } else if (record.user.empty()) {
      history_->nodes(id, static_cast<uid_t>(job->user_id), job->user,
                      job->state == JobState::running ? static_cast<int>(job->nodes.size()) : 0,
                      now);
    }
  }
  for (const std::uint32_t id : gone) history_->ended(id, now);
}

}  // namespace gaptrain::core
