#include "daemon.hpp"

#include <json/writer.h>
#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>

#include "auth.hpp"
#include "core/home.hpp"
#include "core/launch_instruction.hpp"
#include "core/node_type.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/text_file.hpp"
#include "job_view.hpp"
#include "log.hpp"
#include "state_file.hpp"

namespace gaptrain::daemon {

namespace {

constexpr std::uint64_t kUsecPerS = 1000000;
// Plugin events trigger polls, but a 64-node job ending sends 64 epilog events: polls are at
// least this far apart so a burst costs slurmctld a few polls, not 64.
constexpr std::uint64_t kMinPollSpacingUsec = 100000;
// While a node is COMPLETING (its last job's epilog still runs) the hole it becomes is seconds
// away: poll that often until it shows up, so holes appear within ~2 s of a job's end.
constexpr std::uint64_t kCompletingPollUsec = 250000;
// Polls normally pass Slurm's last update times (cheap "no change" answers); every this often a
// full load guards against a change that did not bump them (backfill's plan updates).
constexpr std::uint64_t kFullPollUsec = 10 * kUsecPerS;
// A registration of a job not seen running waits for a poll; such polls are at least this far
// apart, so that registrations of unknown jobs, however many, cost slurmctld one poll a second.
constexpr std::uint64_t kRegistrationPollSpacingUsec = kUsecPerS;

// sd_event_now() is the time the loop woke up: the same all through one callback.
std::uint64_t mono_now_uncached() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * kUsecPerS +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000;
}

double mono_now_uncached_s() {
  return static_cast<double>(mono_now_uncached()) / static_cast<double>(kUsecPerS);
}

std::int64_t wall_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

// The wall clock to the microsecond, for the history's clock (job_history.hpp): Slurm's times
// are whole seconds (wall_now), a training's progress stamps are not.
double wall_now_precise() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::uint64_t mono_now(sd_event* event) {
  std::uint64_t now = 0;
  sd_event_now(event, CLOCK_MONOTONIC, &now);
  return now;
}

log::Level to_log_level(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return log::Level::debug;
    case LogLevel::info: return log::Level::info;
    case LogLevel::warning: return log::Level::warning;
  }
  return log::Level::info;
}

std::string compact(const Json::Value& value) {
  Json::StreamWriterBuilder writer;
  writer["indentation"] = "";
  return Json::writeString(writer, value);
}

RequestKind kind_of(const protocol::Request& request) {
  return std::visit(
      [](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, protocol::NodeFreed>) return RequestKind::node_freed;
        if constexpr (std::is_same_v<T, protocol::NodeTaken>) return RequestKind::node_taken;
        if constexpr (std::is_same_v<T, protocol::JobRegistration>) {
          return RequestKind::job_registration;
        }
        if constexpr (std::is_same_v<T, protocol::StatusRequest>) return RequestKind::status;
        if constexpr (std::is_same_v<T, protocol::LauncherReport>) {
          return RequestKind::launcher_report;
        }
        if constexpr (std::is_same_v<T, protocol::JobRequest>) return RequestKind::job;
        if constexpr (std::is_same_v<T, protocol::OperationRequest>) return RequestKind::operation;
      },
      request);
}

HistoryLimits history_limits(const DaemonConfig& config) {
  return {static_cast<std::size_t>(config.job_history),
          static_cast<std::size_t>(config.job_history_points)};
}

std::string end_text(const std::optional<std::int64_t>& end) {
  return end ? std::to_string(*end) : std::string("unknown");
}

}  // namespace

Daemon::Daemon(std::string config_path, DaemonConfig config, SlurmQueries& slurm,
               SlurmActions& actions)
    : config_path_(std::move(config_path)),
      config_(std::move(config)),
      slurm_(slurm),
      actions_(actions) {
  resizer_.emplace(actions_, resizer_settings(config_));
  history_.set_limits(history_limits(config_));
  log::set_threshold(to_log_level(config_.log_level));
  int r = sd_event_default(&event_);
  if (r < 0) throw std::system_error(-r, std::generic_category(), "sd_event_default");
  // The signals were blocked in main() before any thread existed; sd-event reads them from a
  // signalfd, so they are handled inside the loop like any other event.
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    sd_event_source* source = nullptr;
    r = sd_event_add_signal(event_, &source, signal, &Daemon::on_signal, this);
    if (r < 0) throw std::system_error(-r, std::generic_category(), "sd_event_add_signal");
    signal_sources_.push_back(source);
  }
  // Pings systemd at half of WatchdogSec while the loop turns; a no-op outside systemd.
  sd_event_set_watchdog(event_, 1);

  const auto worker_failed = [](const std::string& what) {
    log::error("internal error in a worker task", {{"REASON", what}});
  };
  slurm_worker_ = std::make_unique<Worker>(event_, worker_failed);
  auth_worker_ = std::make_unique<Worker>(event_, worker_failed);

  server_ = std::make_unique<LineServer>(
      event_,
      [this](std::string_view line, const std::string& peer, LineServer::ConnectionId id) {
        handle_line(line, peer, id);
      },
      [this](const std::string& peer, const std::string& reason) {
        ++events_.rejected;
        const std::string sender = sender_of_address(peer_address(peer));
        if (!limiter_.blocked(sender, now().mono)) {
          log::warning("request rejected",
                       {{"UID", "unknown"}, {"REASON", reason}, {"PEER", peer}});
        }
        note_rejection(sender);
      },
      LineServer::Limits{});
  server_->set_connection_limits(static_cast<std::size_t>(config_.max_connections),
                                 static_cast<std::size_t>(config_.max_connections_per_peer));
  server_->on_idle([this] {
    if (draining_) sd_event_exit(event_, 0);
  });
  server_->listen(config_.listen);
  log::info("listening", {{"LISTEN", to_string(config_.listen)}});
  metrics_.set_operation(operation_);
  if (config_.metrics_listen) {
    try {
      metrics_.serve(config_.metrics_listen->host, config_.metrics_listen->port);
    } catch (const std::exception& e) {
      throw StartError("cannot serve metrics on " + to_string(*config_.metrics_listen) + ": " +
                       e.what());
    }
    log::info("serving metrics",
              {{"LISTEN", "http://" + to_string(*config_.metrics_listen) + "/metrics"}});
  }

  r = sd_event_add_time(event_, &poll_timer_, CLOCK_MONOTONIC, 1, 0, &Daemon::on_poll_timer, this);
  if (r < 0) throw std::system_error(-r, std::generic_category(), "sd_event_add_time");
}

Daemon::~Daemon() {
  // The workers first: their threads end (after the Slurm call that runs) before the rest goes.
  slurm_worker_.reset();
  auth_worker_.reset();
  server_.reset();
  sd_event_source_disable_unref(poll_timer_);
  for (sd_event_source* source : signal_sources_) sd_event_source_disable_unref(source);
  sd_event_unref(event_);
}

int Daemon::run() {
  const int r = sd_event_loop(event_);
  if (r < 0) {
    log::error("event loop failed", {{"ERRNO", -r}});
    return 1;
  }
  log::info("stopped");
  return r;
}

int Daemon::on_poll_timer(sd_event_source* /*source*/, std::uint64_t /*usec*/, void* self) {
  static_cast<Daemon*>(self)->poll();
  return 0;
}

int Daemon::on_signal(sd_event_source* /*source*/, const signalfd_siginfo* info, void* self) {
  auto& daemon = *static_cast<Daemon*>(self);
  if (info->ssi_signo == SIGHUP) {
    daemon.reload();
  } else {
    daemon.drain();
  }
  return 0;
}

void Daemon::poll() {
  if (cycle_running_) {  // never two at once: the one that runs is followed by another
    poll_soon();
    return;
  }
  cycle_running_ = true;
  cycle_started_ = mono_now_uncached();
  const std::uint64_t mono = mono_now(event_);
  // Backfill re-plans pending jobs (start_time, sched_nodes) without bumping the job table's
  // update time: while a regular job waits and elastic jobs hold nodes, every poll is a full
  // one, or a reclaim would wait for the periodic full load.
  const bool regular_waiting =
      !elastic_.jobs().empty() &&
      std::any_of(snapshot_.jobs.begin(), snapshot_.jobs.end(), [&](const Job& job) {
        return job.state == JobState::pending &&
               !config_.elastic_partitions.contains(job.partition);
      });
  const bool full =
      last_full_poll_mono_ == 0 || regular_waiting || mono - last_full_poll_mono_ >= kFullPollUsec;
  last_poll_mono_ = mono;
  const std::int64_t now = wall_now();
  // The registrations that came before this poll started are answered by it.
  if (!awaiting_poll_.empty()) last_registration_poll_mono_ = mono;
  awaiting_answer_ = std::exchange(awaiting_poll_, {});
  // slurmctld's configuration again with every full poll: PrivateData follows an
  // `scontrol reconfigure`. Needed once; when a later load fails, the last one stays.
  const bool load_config = !slurm_user_ || full;
  const bool config_needed = !slurm_user_;
  slurm_worker_->post([this, &slurm = slurm_, snapshot = snapshot_, now, full, mono, load_config,
                       config_needed]() mutable -> Worker::Done {
    SlurmQueries::Result result = slurm.poll(snapshot, now, full);
    std::optional<SlurmQueries::Config> slurm_config;
    if (result.ok && load_config) {
      SlurmQueries::Config loaded_config;
      const SlurmQueries::Result loaded = slurm.load_config(loaded_config);
      if (loaded.ok) {
        slurm_config = std::move(loaded_config);
      } else if (config_needed) {
        result = loaded;
      }
    }
    return [this, result = std::move(result), snapshot = std::move(snapshot),
            slurm_config = std::move(slurm_config), now, full, mono]() mutable {
      polled(std::move(result), std::move(snapshot), std::move(slurm_config), now, full, mono);
    };
  });
}

// Said once, and again when slurmctld's release or SchedulerParameters change (a reconfigure or
// an upgrade while gaptraind runs).
void Daemon::note_slurm_behaviour(const SlurmControllerConfig& controller) {
  if (slurm_controller_ && slurm_controller_->slurmctld_release == controller.slurmctld_release &&
      slurm_controller_->scheduler_parameters == controller.scheduler_parameters &&
      slurm_controller_->preempt_type == controller.preempt_type &&
      slurm_controller_->preempt_mode_cancel == controller.preempt_mode_cancel) {
    return;
  }
  slurm_controller_ = controller;
  slurm_behaviour_ = behaviour_for(controller);
  log::info("slurm release", {{"SLURMCTLD", controller.slurmctld_release},
                              {"BUILT_AGAINST", controller.built_release}});
  for (const std::string& notice : slurm_behaviour_->notices) log::warning(notice);
  for (const std::string& problem : satellite_qos_problems(controller, config_.satellite_qos)) {
    log::warning(problem);
  }
}

// Said at the first poll, and again when slurmctld's partitions or release (a reconfigure, an
// upgrade) change what is wrong with satellite_partition.
void Daemon::note_satellite_partition() {
  std::vector<std::string> problems = satellite_partition_problems(
      snapshot_.partitions, config_.satellite_partition, config_.elastic_partitions,
      slurm_controller_ ? slurm_controller_->slurmctld_release : std::string());
  if (problems == satellite_partition_problems_) return;
  for (const std::string& problem : problems) log::warning(problem);
  satellite_partition_problems_ = std::move(problems);
}

void Daemon::polled(SlurmQueries::Result result, Snapshot snapshot,
                    std::optional<SlurmQueries::Config> slurm_config, std::int64_t now, bool full,
                    std::uint64_t mono) {
  if (slurm_config) {
    slurm_user_ = slurm_config->slurm_user;
    private_data_ = slurm_config->private_data;
    metrics_.set_private_data(slurm_config->private_data);
    note_slurm_behaviour(slurm_config->controller);
  }
  // While elastic jobs hold nodes, a regular job's submission (no plugin event) must be seen
  // soon: it may be waiting for them.
  const double interval_s = elastic_.jobs().empty()
                                ? config_.poll_interval_s
                                : std::min(config_.poll_interval_s, config_.watch_interval_s);
  const auto delay = static_cast<std::uint64_t>(interval_s * static_cast<double>(kUsecPerS));
  if (!result.ok) {
    if (!poll_failing_) log::warning("cannot poll Slurm", {{"REASON", result.error}});
    poll_failing_ = true;
    poll_error_ = result.error;
    sd_notifyf(0, "STATUS=Cannot poll Slurm: %s", result.error.c_str());
    // Not the registrations' fault: refused without counting against their hosts.
    for (const WaitingRegistration& waiting : std::exchange(awaiting_answer_, {})) {
      server_->reply(waiting.id, reject(waiting.peer, waiting.uid, "register",
                                        "Slurm cannot be asked about job " +
                                            std::to_string(waiting.request.job_id) + " now (" +
                                            result.error + "): register it again later"));
    }
    end_cycle(delay);
    return;
  }
  if (poll_failing_) log::info("polling Slurm again");
  poll_failing_ = false;
  if (full) last_full_poll_mono_ = mono;
  last_poll_ = now;
  snapshot_ = std::move(snapshot);
  const CycleSettings settings = cycle_settings(config_, slurm_behaviour_, operation_);
  const HoleChanges changed = observe_cluster(snapshot_, holes_, settings);
  for (const Hole& hole : changed.opened) {
    log::info("hole opened", {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
  }
  for (const Hole& hole : changed.end_changed) {
    log::debug("hole end changed",
               {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
  }
  for (const Hole& hole : changed.closed) {
    log::info("hole closed", {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
  }
  // With slurmctld's configuration: at the first poll and every full one (a reconfigure that
  // changes the partitions shows there), not at every watch poll.
  if (slurm_config) note_satellite_partition();
  if (!state_loaded_) load_state();
  history_.tick(static_cast<double>(now),
                static_cast<double>(mono) / static_cast<double>(kUsecPerS));
  const Refreshed refreshed =
      elastic_.refresh(snapshot_, static_cast<double>(mono) / static_cast<double>(kUsecPerS),
                       settings.satellite_partition);
  for (const std::uint32_t job_id : refreshed.forgotten) {
    log::info("elastic job ended, forgotten", {{"JOB_ID", job_id}});
    history_.ended(job_id, static_cast<double>(now));
  }
  // Slurm freed these itself for regular jobs (satellite_qos): a reclaim gaptraind did not make.
  for (const auto& [job_id, nodes] : refreshed.preempted) {
    log::info("satellites preempted by Slurm for regular jobs",
              {{"ACTION", "preempted"}, {"JOB_ID", job_id}, {"NODES", join_nodes(nodes)}});
    const auto job = elastic_.jobs().find(job_id);
    if (job == elastic_.jobs().end()) continue;
    history_.resize(job_id,
                    ResizeRecord{static_cast<double>(now), ResizeKind::reclaim,
                                 "preempted by Slurm for a regular job", job->second.nodes});
  }
  follow_history(static_cast<double>(now));
  // Registered now, they are planned by the act() below.
  for (const WaitingRegistration& waiting : std::exchange(awaiting_answer_, {})) {
    on_registration(waiting.request, waiting.uid, waiting.peer, waiting.id, true);
  }
  last_solve_ms_.reset();
  act();
}

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
    const ElasticJob& elastic = elastic_.jobs().at(id);
    log::info("elastic job restored", {{"JOB_ID", id},
                                       {"USER", elastic.user},
                                       {"NODES", join_nodes(elastic.nodes)},
                                       {"CURVE", to_string(elastic.curve_source)},
                                       {"COSTS", to_string(elastic.costs_source)},
                                       {"UP_COST_S", seconds_text(elastic.up_cost_s)},
                                       {"DOWN_COST_S", seconds_text(elastic.down_cost_s)}});
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

void Daemon::follow_history(const ElasticJob& job, double now) {
  history_.nodes(job.job_id, job.uid, job.user, static_cast<int>(job.nodes.size()), now);
  std::map<int, double> measured;
  if (job.learner && job.curve_source == Source::learned) measured = job.learner->measured_rates();
  std::vector<ScalingCurve::Point> assumed;
  for (const ScalingCurve::Point& point : job.curve.points()) {
    if (!measured.contains(point.nodes)) assumed.push_back(point);
  }
  history_.curve(job.job_id, std::move(measured), std::move(assumed), to_string(job.curve_source));
  const std::optional<NoiseScale> phi = noise_scale_of(job);
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
    const Job* job = find_job(snapshot_, id);
    if (job == nullptr || job->state == JobState::finished) {
      gone.push_back(id);
    } else if (record.user.empty()) {
      history_.nodes(id, static_cast<uid_t>(job->user_id), job->user,
                     job->state == JobState::running ? static_cast<int>(job->nodes.size()) : 0,
                     now);
    }
  }
  for (const std::uint32_t id : gone) history_.ended(id, now);
}

std::string Daemon::job_reply(std::uint32_t job_id, uid_t uid) {
  const JobRecord* job = history_.find(job_id);
  const double wall = wall_now_precise();
  history_.tick(wall, mono_now_uncached_s());
  const double now = history_.steady(wall);
  if (job == nullptr) {
    // Not managed yet: a parked or held job waiting for admission says why it waits (to its
    // owner and admins, as `gaptrain status` lists the queue).
    const Job* slurm_job = find_job(snapshot_, job_id);
    const auto waiting = std::find_if(queue_waiting_.begin(), queue_waiting_.end(),
                                      [&](const auto& entry) { return entry.first == job_id; });
    if (waiting != queue_waiting_.end() && slurm_job != nullptr &&
        (privileged(uid) || slurm_job->user_id == uid)) {
      Json::Value reply(Json::objectValue);
      reply["ok"] = false;
      reply["queued"] = true;
      reply["error"] =
          "job " + std::to_string(job_id) + " waits for gaptraind to admit it: " + waiting->second;
      return compact(reply);
    }
    Json::Value reply(Json::objectValue);
    reply["ok"] = false;
    reply["unknown_job"] = true;
    reply["error"] = "job " + std::to_string(job_id) +
                     " is not in gaptraind's history: gaptrain did not manage it (not submitted "
                     "--elastic, or not registered yet), it ended more than job_history (" +
                     std::to_string(config_.job_history) +
                     ") jobs ago, or before gaptraind last started";
    return compact(reply);
  }
  const StatusViewer viewer{uid, privileged(uid)};
  if (auto refused =
          job_view_refusal(job_id, job->uid, private_data_.value_or(PrivateData::all()), viewer)) {
    return error_reply(*refused);
  }
  Json::Value reply(Json::objectValue);
  reply["ok"] = true;
  reply["job"] = job_view_json(*job, now);
  return compact(reply);
}

Now Daemon::now() const {
  return Now{.mono = static_cast<double>(mono_now(event_)) / static_cast<double>(kUsecPerS),
             .wall = wall_now(),
             .wall_precise =
                 std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                     .count()};
}

// What act() did on the worker: the copies it changed, and the cycle's outcome.
struct Daemon::ActOutcome {
  ElasticJobs elastic;
  Resizer resizer;
  CycleOutcome cycle;
  Now decided_at;
};

void Daemon::act() {
  const Now at = now();
  acting_ = true;
  // Copies, handed over: the loop keeps its own to answer status meanwhile, and holds back
  // what would change them (hold_while_acting) until the outcome replaces them.
  slurm_worker_->post(
      [this, at, elastic = elastic_, resizer = *resizer_, snapshot = snapshot_, holes = holes_,
       settings = cycle_settings(config_, slurm_behaviour_, operation_)]() mutable -> Worker::Done {
        try {
          CycleOutcome outcome = cycle(snapshot, holes, elastic, resizer, at, settings);
          return [this, outcome = ActOutcome{std::move(elastic), std::move(resizer),
                                             std::move(outcome), at}]() mutable {
            acted(std::move(outcome));
          };
        } catch (const std::exception& e) {
          // The loop keeps its own copies, unchanged: every job stays as it is until the next poll.
          return [this, what = std::string(e.what())] { cycle_failed(what); };
        }
      });
}

std::string Daemon::on_operation(const std::string& request, uid_t uid) {
  operation_ = request == "pause"   ? Operation::paused
               : request == "drain" ? Operation::draining
                                    : Operation::running;
  operation_asked_ = true;
  metrics_.set_operation(operation_);
  save_state();
  log::info("operation changed by an admin",
            {{"OPERATION", std::string(to_string(operation_))}, {"UID", uid}});
  poll_soon();
  Json::Value reply(Json::objectValue);
  reply["ok"] = true;
  reply["operation"] = std::string(to_string(operation_));
  return compact(reply);
}

void Daemon::acted(ActOutcome outcome) {
  acting_ = false;
  elastic_ = std::move(outcome.elastic);
  resizer_.emplace(std::move(outcome.resizer));
  resizer_->set_settings(resizer_settings(config_));  // a reload meanwhile changed the loop's copy
  for (const Note& note : outcome.cycle.notes) log::write(note);
  std::set<std::uint32_t> set_aside;
  for (const auto& [job_id, reason] : outcome.cycle.set_aside) {
    set_aside.insert(job_id);
    if (!set_aside_.contains(job_id)) {
      log::warning("job set aside: the allocator refuses its inputs; it keeps its nodes",
                   {{"JOB_ID", job_id}, {"REASON", reason}});
    }
  }
  set_aside_ = std::move(set_aside);
  // An idle node nobody grows into says why, once: the regular job it is kept for.
  for (const auto& [node, kept] : outcome.cycle.kept_idle) {
    const auto before = kept_idle_.find(node);
    if (before == kept_idle_.end() || before->second != kept) {
      log::info("idle node kept", {{"NODE", node}, {"FOR_JOB", kept.job_id}, {"WHY", kept.why}});
    }
  }
  kept_idle_ = std::move(outcome.cycle.kept_idle);
  queue_waiting_ = std::move(outcome.cycle.waiting);
  history_.tick(static_cast<double>(outcome.decided_at.wall), outcome.decided_at.mono);
  for (const auto& [job_id, resize] : outcome.cycle.resizes) history_.resize(job_id, resize);
  follow_history(static_cast<double>(outcome.decided_at.wall));
  if (const auto& allocation = outcome.cycle.allocation) {
    metrics_.observe_solve(allocation->solve_ms / 1000.0);
    last_solve_ms_ = allocation->solve_ms;
    if (allocation->call_status != CallStatus::ok) {
      log::warning("allocator failed, keeping every job as it is",
                   {{"REASON", allocation->message}});
    }
  }
  save_state();
  for (const double seconds : resizer_->take_reclaim_latencies()) {
    metrics_.observe_reclaim(seconds);
  }
  metrics_.update(snapshot_, holes_, elastic_, config_.elastic_partitions, resizer_->counts(),
                  events_, now().mono);

  if (poll_observer_) {
    const auto poll_usec = static_cast<double>(mono_now_uncached() - cycle_started_);
    poll_observer_({snapshot_.nodes.size(), holes_.size(), poll_usec / 1000.0, last_solve_ms_,
                    outcome.decided_at, std::exchange(registered_, {})});
  }

  if (!ready_) {
    ready_ = true;
    sd_notify(0, "READY=1");
    log::info("ready", {{"NODES", snapshot_.nodes.size()}});
  }
  sd_notifyf(0, "STATUS=%zu nodes, %zu holes, %zu elastic jobs", snapshot_.nodes.size(),
             holes_.size(), elastic_.jobs().size());

  const double interval_s = elastic_.jobs().empty()
                                ? config_.poll_interval_s
                                : std::min(config_.poll_interval_s, config_.watch_interval_s);
  auto delay = static_cast<std::uint64_t>(interval_s * static_cast<double>(kUsecPerS));
  // A drain completes by its deadline even when no launcher reports (the poll runs act()).
  if (!resizer_->drains().empty() ||
      std::any_of(snapshot_.nodes.begin(), snapshot_.nodes.end(),
                  [](const Node& n) { return n.state == NodeState::completing; })) {
    delay = std::min(delay, kCompletingPollUsec);
  }
  end_cycle(delay);
  // Slurm changed: see it at once (and re-plan with it) rather than at the next interval.
  if (outcome.cycle.changed) poll_soon();
}

void Daemon::end_cycle(std::uint64_t delay_usec) {
  cycle_running_ = false;
  std::uint64_t scheduled = 0;
  int enabled = SD_EVENT_OFF;
  sd_event_source_get_time(poll_timer_, &scheduled);
  sd_event_source_get_enabled(poll_timer_, &enabled);
  // A poll asked for while this one ran (poll_soon) keeps its earlier time.
  const std::uint64_t when = mono_now(event_) + delay_usec;
  if (enabled == SD_EVENT_OFF || scheduled > when) arm_poll_timer(delay_usec);
  if (const auto wanted = std::exchange(poll_wanted_at_, std::nullopt))
    poll_no_sooner_than(*wanted);
  for (auto& request : std::exchange(held_requests_, {})) request();
}

void Daemon::cycle_failed(const std::string& what) {
  log::error("internal error planning or acting, keeping every job as it is", {{"REASON", what}});
  acting_ = false;
  end_cycle(static_cast<std::uint64_t>(config_.poll_interval_s * static_cast<double>(kUsecPerS)));
}

bool Daemon::hold_while_acting(std::function<void()> request) {
  if (!acting_) return false;
  held_requests_.push_back(std::move(request));
  return true;
}

void Daemon::arm_poll_timer(std::uint64_t delay_usec) {
  if (draining_) return;
  sd_event_source_set_time(poll_timer_, mono_now(event_) + delay_usec);
  sd_event_source_set_enabled(poll_timer_, SD_EVENT_ONESHOT);
}

void Daemon::poll_soon() {
  poll_no_sooner_than(last_poll_mono_ + kMinPollSpacingUsec);
}

void Daemon::poll_no_sooner_than(std::uint64_t not_before) {
  if (draining_) return;
  if (cycle_running_) {  // end_cycle() asks again
    poll_wanted_at_ = std::min(poll_wanted_at_.value_or(not_before), not_before);
    return;
  }
  const std::uint64_t now = mono_now(event_);
  const std::uint64_t when = std::max(now, not_before);
  std::uint64_t scheduled = 0;
  int enabled = SD_EVENT_OFF;
  sd_event_source_get_time(poll_timer_, &scheduled);
  sd_event_source_get_enabled(poll_timer_, &enabled);
  if (enabled != SD_EVENT_OFF && scheduled <= when) return;  // already due soon enough
  sd_event_source_set_time(poll_timer_, when);
  sd_event_source_set_enabled(poll_timer_, SD_EVENT_ONESHOT);
}

void Daemon::reload() {
  sd_notify(0, "RELOADING=1");
  try {
    DaemonConfig fresh = parse_config(read_text_file(config_path_));
    if (fresh.listen != config_.listen) server_->listen(fresh.listen);
    if (fresh.metrics_listen != config_.metrics_listen) {
      log::warning("metrics_listen changes at the next restart", {{"CONFIG", config_path_}});
      fresh.metrics_listen = config_.metrics_listen;
    }
    if (fresh.state_file != config_.state_file) {
      // main() locked the state file it started with (state_lock.hpp).
      log::warning("state_file changes at the next restart", {{"CONFIG", config_path_}});
      fresh.state_file = config_.state_file;
    }
    config_ = std::move(fresh);
    log::set_threshold(to_log_level(config_.log_level));
    server_->set_connection_limits(static_cast<std::size_t>(config_.max_connections),
                                   static_cast<std::size_t>(config_.max_connections_per_peer));
    // An act() running keeps the settings it started with; the next one has these.
    resizer_->set_settings(resizer_settings(config_));
    history_.set_limits(history_limits(config_));
    log::info("configuration reloaded",
              {{"CONFIG", config_path_}, {"LISTEN", to_string(config_.listen)}});
  } catch (const InputError& e) {
    log::warning("configuration not reloaded, keeping the running one",
                 {{"CONFIG", config_path_}, {"REASON", e.what()}});
  } catch (const std::system_error& e) {
    log::warning("configuration not reloaded, keeping the running one",
                 {{"CONFIG", config_path_}, {"REASON", e.what()}});
  }
  sd_notify(0, "READY=1");
}

void Daemon::drain() {
  if (draining_) return;
  draining_ = true;
  sd_notify(0, "STOPPING=1");
  log::info("stopping: finishing open requests", {{"CONNECTIONS", server_->connections()}});
  server_->stop_listening();
  sd_event_source_set_enabled(poll_timer_, SD_EVENT_OFF);
  // No poll will answer these now: they are told at once rather than at their deadline.
  for (const WaitingRegistration& waiting : std::exchange(awaiting_poll_, {})) {
    server_->reply(waiting.id, error_reply("gaptraind is stopping: job " +
                                           std::to_string(waiting.request.job_id) +
                                           " is not registered, register it again once it runs"));
  }
  // Open connections end within their deadlines; the last one to close ends the loop.
  if (server_->connections() == 0) sd_event_exit(event_, 0);
}

void Daemon::note_rejection(const std::string& sender) {
  if (limiter_.rejected(sender, now().mono)) {
    log::warning("sender blocked: too many refused requests",
                 {{"SENDER", sender}, {"BLOCK_S", std::lround(limiter_.limits().block_s)}});
  }
}

bool Daemon::privileged(uid_t uid) const {
  return uid == 0 || uid == slurm_user_;
}

std::string Daemon::blocked_reason(uid_t uid) const {
  return "uid " + std::to_string(uid) + " is blocked for up to " +
         std::to_string(std::lround(limiter_.limits().block_s)) +
         " s after too many refused requests; its jobs' launchers and status are still served";
}

void Daemon::note_rejection(uid_t uid) {
  // Root and SlurmUser are never blocked: a plugin event or an admin's command must get through
  // whatever else happens on their hosts.
  if (!privileged(uid)) note_rejection(sender_of_uid(uid));
}

std::string Daemon::reject(const std::string& peer, std::optional<uid_t> uid, std::string_view kind,
                           const std::string& reason) {
  ++events_.rejected;
  log::warning("request rejected", {{"UID", uid ? std::to_string(*uid) : std::string("unknown")},
                                    {"REASON", reason},
                                    {"PEER", peer},
                                    {"REQUEST", kind}});
  return error_reply(reason);
}

void Daemon::handle_line(std::string_view line, const std::string& peer,
                         LineServer::ConnectionId id) {
  if (!line.starts_with(munge::kMungeCredentialPrefix)) {
    // Refused here, without a round trip to munged: garbage must cost next to nothing.
    const std::string sender = sender_of_address(peer_address(peer));
    const std::string reason = "not authenticated: the request is not a munge credential";
    std::string reply = limiter_.blocked(sender, now().mono)
                            ? error_reply(reason)  // counted, not logged again while blocked
                            : reject(peer, std::nullopt, "unknown", reason);
    note_rejection(sender);
    return server_->reply(id, std::move(reply));
  }
  // munged is a socket round trip away, and may hang: the credential is opened off the loop.
  auth_worker_->post([this, credential = std::string(line), socket = config_.munge_socket, peer,
                      id]() -> Worker::Done {
    std::optional<munge::Opened> opened;
    std::string error;
    try {
      opened = munge::open(credential, socket);
    } catch (const munge::MungeError& e) {
      error = e.what();
    }
    return [this, opened = std::move(opened), error = std::move(error), peer, id] {
      on_request(opened ? &*opened : nullptr, error, peer, id);
    };
  });
}

void Daemon::on_request(const munge::Opened* opened, const std::string& munge_error,
                        const std::string& peer, LineServer::ConnectionId id) {
  const auto answer = [&](std::string reply) { server_->reply(id, std::move(reply)); };
  try {
    if (opened == nullptr) {
      note_rejection(sender_of_address(peer_address(peer)));
      return answer(reject(peer, std::nullopt, "unknown", "not authenticated: " + munge_error));
    }
    const uid_t uid = opened->uid;
    protocol::Request request;
    try {
      request = protocol::decode(opened->payload);
    } catch (const InputError& e) {
      note_rejection(uid);
      return answer(reject(peer, uid, "unknown", std::string("bad request: ") + e.what()));
    }
    const RequestKind kind = kind_of(request);
    const std::string_view type = protocol::type_name(request);
    // A blocked uid is still served what its jobs need (its launchers' reports and
    // registrations of running jobs, below) and status (throttled on its own); the rest is
    // refused without work.
    const bool blocked = !privileged(uid) && limiter_.blocked(sender_of_uid(uid), now().mono);
    if (blocked && (kind == RequestKind::node_freed || kind == RequestKind::node_taken)) {
      return answer(error_reply(blocked_reason(uid)));
    }

    if (kind == RequestKind::status) {
      // Status requests are not counted as events: a monitoring loop would drown the count.
      const StatusViewer viewer{uid, privileged(uid)};
      if (!viewer.privileged && !status_throttle_.allow(uid, now().mono)) {
        // Not a rejection (note_rejection): a user's `watch` must not block their host.
        return answer(error_reply(
            "too many status requests from uid " + std::to_string(uid) + ": at most " +
            std::to_string(std::lround(status_throttle_.limits().per_s)) +
            " a second; try again in " +
            std::to_string(std::lround(std::ceil(status_throttle_.wait_s(uid, now().mono)))) +
            " s"));
      }
      Json::Value reply(Json::objectValue);
      reply["ok"] = true;
      reply["status"] = status_json(snapshot_, holes_, elastic_, events_, last_poll_);
      reply["status"]["actions"] = actions_json(*resizer_, now().mono);
      reply["status"]["operation"] = std::string(to_string(operation_));
      reply["status"]["queue"] =
          queue_json(queue_waiting_, snapshot_,
                     viewer.privileged ? std::nullopt : std::optional<std::uint32_t>(uid));
      apply_private_data(reply["status"], snapshot_, elastic_,
                         private_data_.value_or(PrivateData::all()), viewer);
      // While slurmctld does not answer, the view above is the last one it gave.
      reply["status"]["slurm_error"] =
          poll_failing_ ? Json::Value(poll_error_) : Json::Value(Json::nullValue);
      return answer(compact(reply));
    }
    if (kind == RequestKind::job) {
      const StatusViewer viewer{uid, privileged(uid)};
      if (!viewer.privileged && !status_throttle_.allow(uid, now().mono)) {
        return answer(error_reply(
            "too many status and job requests from uid " + std::to_string(uid) + "; try again in " +
            std::to_string(std::lround(std::ceil(status_throttle_.wait_s(uid, now().mono)))) +
            " s"));
      }
      return answer(job_reply(std::get<protocol::JobRequest>(request).job_id, uid));
    }
    if (kind == RequestKind::job_registration) {
      const auto& registration = std::get<protocol::JobRegistration>(request);
      const Job* job = find_job(snapshot_, registration.job_id);
      if (blocked && (job == nullptr || job->state != JobState::running)) {
        // It would wait for a poll: the cost the block is there to stop.
        return answer(error_reply(blocked_reason(uid)));
      }
      return on_registration(registration, uid, peer, id, false);
    }
    if (kind == RequestKind::launcher_report) {
      auto report = std::get<protocol::LauncherReport>(request);
      if (hold_while_acting([this, report, uid, peer, id] {
            server_->reply(id, on_launcher_report(report, uid, peer));
          })) {
        return;
      }
      return answer(on_launcher_report(report, uid, peer));
    }
    // Until slurmctld told us who SlurmUser is, only root may send node events.
    if (auto refused = authorize(kind, uid, slurm_user_.value_or(0), std::nullopt)) {
      note_rejection(uid);  // a forged node event
      return answer(reject(peer, uid, type, *refused));
    }
    if (const auto* operation = std::get_if<protocol::OperationRequest>(&request)) {
      return answer(on_operation(operation->operation, uid));
    }
    if (const auto* freed = std::get_if<protocol::NodeFreed>(&request)) {
      on_node_event(true, freed->job_id, freed->node, uid, false);
    } else if (const auto* taken = std::get_if<protocol::NodeTaken>(&request)) {
      on_node_event(false, taken->job_id, taken->node, uid, taken->elastic);
    }
    ++events_.accepted;
    return answer(R"({"ok":true})");
  } catch (const std::exception& e) {
    // Never let one request take the daemon down; the client learns it failed.
    log::error("internal error handling a request", {{"REASON", e.what()}, {"PEER", peer}});
    return answer(error_reply(std::string("internal error: ") + e.what()));
  }
}

void Daemon::on_node_event(bool freed, std::uint32_t job_id, const std::string& node, uid_t uid,
                           bool elastic) {
  if (freed) {
    log::info("node freed", {{"JOB_ID", job_id}, {"NODE", node}, {"UID", uid}});
  } else {
    const auto hole =
        std::find_if(holes_.begin(), holes_.end(), [&](const Hole& h) { return h.node == node; });
    if (hole != holes_.end()) {
      // A reclaim: the regular workload took a hole. HOLE_END says what we predicted, so the
      // journal tells how good the predictions are.
      log::info("hole reclaimed", {{"JOB_ID", job_id},
                                   {"NODE", node},
                                   {"UID", uid},
                                   {"ELASTIC", elastic ? "yes" : "no"},
                                   {"HOLE_SINCE", hole->since},
                                   {"HOLE_END", end_text(hole->predicted_end)}});
    } else {
      log::info(
          "node taken",
          {{"JOB_ID", job_id}, {"NODE", node}, {"UID", uid}, {"ELASTIC", elastic ? "yes" : "no"}});
    }
  }
  // The event is a hint; the poll it triggers is the truth (a lost event costs latency only).
  poll_soon();
}

void Daemon::on_registration(const protocol::JobRegistration& request, uid_t uid,
                             const std::string& peer, LineServer::ConnectionId id, bool polled) {
  if (hold_while_acting([this, request, uid, peer, id, polled] {
        on_registration(request, uid, peer, id, polled);
      })) {
    return;
  }
  const Job* job = find_job(snapshot_, request.job_id);
  if (!polled && (job == nullptr || job->state != JobState::running)) {
    // The job may have started after the last poll: the next poll tells, rather than one run
    // here for each registration (any user could make gaptraind hammer slurmctld).
    awaiting_poll_.push_back({request, uid, peer, id});
    poll_no_sooner_than(std::max(last_poll_mono_ + kMinPollSpacingUsec,
                                 last_registration_poll_mono_ + kRegistrationPollSpacingUsec));
    return;
  }
  const std::optional<uid_t> owner =
      job ? std::optional<uid_t>(static_cast<uid_t>(job->user_id)) : std::nullopt;
  std::optional<std::string> refused =
      authorize(RequestKind::job_registration, uid, slurm_user_.value_or(0), owner);
  if (!refused) {
    refused = elastic_.add(request, snapshot_, config_.elastic_partitions, wall_now(),
                           config_.satellite_partition);
  }
  if (refused) {
    note_rejection(uid);  // each one may have cost a poll: limited like any other refusal
    server_->reply(id, reject(peer, uid, "register", *refused));
    return;
  }
  const ElasticJob& elastic = elastic_.jobs().at(request.job_id);
  if (poll_observer_) registered_.push_back(request.job_id);
  ++events_.accepted;
  log::info("elastic job registered", {{"JOB_ID", request.job_id},
                                       {"UID", uid},
                                       {"USER", elastic.user},
                                       {"NODES", join_nodes(elastic.nodes)},
                                       {"BATCH_HOST", elastic.batch_host},
                                       {"MIN_NODES", elastic.min_nodes},
                                       {"MAX_NODES", elastic.max_nodes},
                                       {"CURVE", to_string(elastic.curve_source)},
                                       {"COSTS", to_string(elastic.costs_source)},
                                       {"UP_COST_S", seconds_text(elastic.up_cost_s)},
                                       {"DOWN_COST_S", seconds_text(elastic.down_cost_s)}});
  save_state();
  server_->reply(id, R"({"ok":true})");
}

std::string Daemon::on_launcher_report(const protocol::LauncherReport& report, uid_t uid,
                                       const std::string& peer) {
  // The owner recorded at registration; for a job never registered, Slurm's (so that its owner
  // learns "not registered" rather than "not allowed"). No poll here: launchers report twice a
  // second, and a registered job is in the model already.
  std::optional<uid_t> owner;
  const auto registered = elastic_.jobs().find(report.job_id);
  if (registered != elastic_.jobs().end()) {
    owner = registered->second.uid;
  } else if (const Job* job = find_job(snapshot_, report.job_id)) {
    owner = static_cast<uid_t>(job->user_id);
  }
  if (auto refused = authorize(RequestKind::launcher_report, uid, slurm_user_.value_or(0), owner)) {
    return reject(peer, uid, "launcher", *refused);
  }
  const bool first = registered != elastic_.jobs().end() && !registered->second.reported_at;
  if (!elastic_.report(report, wall_now(), now().mono)) {
    // The job's registration came and waits for the poll that sees the job run: the launcher's
    // first report often comes meanwhile. Not a refusal (status would count one at every job
    // start, and the launcher would register again): nothing to follow yet.
    const auto pending = [&](const std::vector<WaitingRegistration>& waiting) {
      return std::any_of(waiting.begin(), waiting.end(), [&](const WaitingRegistration& w) {
        return w.request.job_id == report.job_id;
      });
    };
    if (pending(awaiting_poll_) || pending(awaiting_answer_)) {
      return protocol::encode_reply(protocol::LaunchInstruction{});
    }
    return reject(peer, uid, "launcher",
                  "job " + std::to_string(report.job_id) +
                      " is not registered with gaptrain (submitted without --elastic, its "
                      "registration was not delivered, or it ended)");
  }
  const ElasticJob& reported = elastic_.jobs().at(report.job_id);
  if (report.samples_done && reported.samples_done == report.samples_done) {
    history_.tick(wall_now_precise(), mono_now_uncached_s());
    history_.progress(report.job_id,
                      {report.progress_time.value_or(static_cast<double>(wall_now())),
                       *report.samples_done, report.world_size});
  } else if (report.samples_done && reported.progress_refused == 1) {
    log::warning("progress refused", {{"JOB_ID", report.job_id},
                                      {"SAMPLES_DONE", std::to_string(*report.samples_done)},
                                      {"REASON",
                                       "below the last, or faster than its nodes can "
                                       "train; said once a job"}});
  }
  follow_history(elastic_.jobs().at(report.job_id), static_cast<double>(wall_now()));
  // Acks complete drains at once (act() on the worker does): a regular job may be waiting.
  if (config_.resize && resizer_->drains().contains(report.job_id)) poll_soon();
  const ElasticJob& job = elastic_.jobs().at(report.job_id);
  // Not counted as an event: like status, a steady stream would drown the plugin's count.
  if (first) {
    log::info("launcher reporting", {{"JOB_ID", report.job_id},
                                     {"UID", uid},
                                     {"RUNNING", join_nodes(report.running)},
                                     {"NODES", join_nodes(job.nodes)}});
  }
  // The job's nodes (the model keeps the batch host, the launcher's rendezvous host, first),
  // those of them it is asked to let go, the satellites its steps run in, its notices and the
  // batch to train at.
  const protocol::LaunchInstruction instruction =
      launch_instruction(job, resizer_->draining(report.job_id), resizer_->notice(report.job_id));
  return protocol::encode_reply(instruction);
}

}  // namespace gaptrain::daemon
