// What the daemon keeps across restarts and shows of each job: the state file (read at the
// first poll, written after each change) and the jobs' histories (`gaptrain job`), followed from
// the model after each poll and decision.
#include <cstdio>
#include <set>
#include <string>
#include <system_error>

#include "daemon.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "log.hpp"
#include "state_file.hpp"

namespace gaptrain::daemon {

void Daemon::load_state() {
  state_loaded_ = true;
  const std::string& path = config_.state_file;
  if (path.empty()) return;
  DaemonState state;
  try {
    const std::optional<std::string> text = read_file_if_exists(path);
    if (!text) return;
    DecodedState decoded = decode_state(*text);
    state = std::move(decoded.state);
    // The rest of the file is used. The file as it was is kept aside, as an unreadable one is,
    // for the next save would drop what was left out.
    if (!decoded.dropped.empty()) {
      const std::string aside = path + ".unreadable";
      const bool moved = std::rename(path.c_str(), aside.c_str()) == 0;
      for (const DroppedEntry& dropped : decoded.dropped) {
        log::warning("state file entry dropped", {{"PATH", path},
                                                  {"FIELD", dropped.field},
                                                  {"REASON", dropped.reason},
                                                  {"MOVED_TO", moved ? aside : "-"}});
      }
    }
  } catch (const std::system_error& e) {
    log::warning("cannot read the state file: starting without it",
                 {{"PATH", path}, {"REASON", e.what()}});
    return;
  } catch (const InputError& e) {
    // Kept aside, not overwritten by the next save: someone may want to look at it.
    const std::string aside = path + ".unreadable";
    const bool moved = std::rename(path.c_str(), aside.c_str()) == 0;
    log::warning("state file unreadable: starting without it",
                 {{"PATH", path}, {"REASON", e.what()}, {"MOVED_TO", moved ? aside : "-"}});
    return;
  }
  // Jobs that still run are managed again; leases keep their users' limits.
  for (const SavedJob& saved : state.jobs) {
    const std::uint32_t id = saved.registration.job_id;
    if (auto refused = elastic_.add(saved.registration, snapshot_, config_.elastic_partitions,
                                    saved.registered_at, config_.satellite_partition)) {
      log::info("saved elastic job not restored", {{"JOB_ID", id}, {"REASON", *refused}});
      continue;
    }
    elastic_.restore_learned(id, saved.learned_curve, saved.learned_costs,
                             saved.learned_noise_scale);
    const core::ElasticJob& elastic = elastic_.jobs().at(id);
    log::info("elastic job restored", {{"JOB_ID", id},
                                       {"USER", elastic.user},
                                       {"NODES", core::join_nodes(elastic.nodes)},
                                       {"CURVE", to_string(elastic.curve_source)},
                                       {"COSTS", to_string(elastic.costs_source)},
                                       {"UP_COST_S", core::seconds_text(elastic.up_cost_s)},
                                       {"DOWN_COST_S", core::seconds_text(elastic.down_cost_s)}});
  }
  // A pause or drain asked for before this first poll is the admin's latest word: it stands.
  if (!operation_asked_ && state.operation != operation_) {
    operation_ = state.operation;
    metrics_.set_operation(operation_);
    log::info("operation restored", {{"OPERATION", std::string(to_string(operation_))}});
  }
  std::map<std::uint32_t, std::uint32_t> limits;
  for (const auto& [id, minutes] : state.user_limits) {
    if (find_job(snapshot_, id) != nullptr) limits[id] = minutes;
  }
  resizer_->restore_user_limits(limits);
}

void Daemon::save_state() {
  const std::string& path = config_.state_file;
  if (path.empty() || !state_loaded_) return;
  DaemonState state;
  for (const auto& [id, job] : elastic_.jobs()) state.jobs.push_back(saved_job(job));
  state.user_limits = resizer_->user_limits();
  state.operation = operation_;
  const std::string text = encode_state(state);
  if (text == saved_state_) return;
  try {
    write_file_atomically(path, text);
    saved_state_ = text;
    if (const long long failed = state_write_failures_.succeeded(); failed > 0) {
      log::info("state file written again", {{"PATH", path}, {"FAILED_WRITES", failed}});
    }
  } catch (const std::system_error& e) {
    // Each message names a fresh temporary file: only the first of a run is logged.
    if (state_write_failures_.failed()) {
      log::warning(
          "cannot write the state file: a restart would forget the elastic jobs and a pause",
          {{"PATH", path}, {"REASON", e.what()}});
    }
  }
}

void Daemon::follow_history(const core::ElasticJob& job, double now) {
  history_.nodes(job.job_id, job.uid, job.user, static_cast<int>(job.nodes.size()), now);
  std::map<int, double> measured;
  if (job.learner && job.curve_source == core::Source::learned)
    measured = job.learner->measured_rates();
  std::vector<ScalingCurve::Point> assumed;
  for (const ScalingCurve::Point& point : job.curve.points()) {
    if (!measured.contains(point.nodes)) assumed.push_back(point);
  }
  history_.curve(job.job_id, std::move(measured), std::move(assumed), to_string(job.curve_source));
  const std::optional<core::NoiseScale> phi = noise_scale_of(job);
  history_.goodput(job.job_id, job.batch, phi ? std::optional(phi->value) : std::nullopt,
                   phi ? to_string(phi->source) : "");
}

void Daemon::follow_history(double now) {
  for (const auto& [id, job] : elastic_.jobs()) follow_history(job, now);
  // Jobs admitted but not registered yet are Slurm's: their owner is known from it; those
  // neither managed nor pending or running any more have ended.
  std::vector<std::uint32_t> gone;
  for (const auto& [id, record] : history_.records()) {
    if (record.ended_at || elastic_.contains(id)) continue;
    const core::Job* job = find_job(snapshot_, id);
    if (job == nullptr || job->state == core::JobState::finished) {
      gone.push_back(id);
    } else if (record.user.empty()) {
      history_.nodes(
          id, static_cast<uid_t>(job->user_id), job->user,
          job->state == core::JobState::running ? static_cast<int>(job->nodes.size()) : 0, now);
    }
  }
  for (const std::uint32_t id : gone) history_.ended(id, now);
}

}  // namespace gaptrain::daemon
