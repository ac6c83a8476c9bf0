#include "daemon.hpp"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <string_view>
#include <system_error>

#include "auth.hpp"
#include "daemon_clock.hpp"
#include "gaptrain/errno_error.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "job_view.hpp"
#include "log.hpp"

namespace gaptrain::daemon {

namespace {

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

log::Level to_log_level(core::LogLevel level) {
  switch (level) {
    case core::LogLevel::debug: return log::Level::debug;
    case core::LogLevel::info: return log::Level::info;
    case core::LogLevel::warning: return log::Level::warning;
  }
  return log::Level::info;
}

core::HistoryLimits history_limits(const core::DaemonConfig& config) {
  return {static_cast<std::size_t>(config.job_history),
          static_cast<std::size_t>(config.job_history_points)};
}

}  // namespace

Daemon::Daemon(std::string config_path, core::DaemonConfig config, core::SlurmQueries& slurm,
               core::SlurmActions& actions)
    : config_path_(std::move(config_path)),
      config_(std::move(config)),
      slurm_(slurm),
      actions_(actions) {
  controller_.emplace(actions_, cycle_settings(config_, slurm_behaviour_, operation_),
                      resizer_settings(config_), history_limits(config_));
  log::set_threshold(to_log_level(config_.log_level));
  int r = sd_event_default(&event_);
  if (r < 0) gaptrain::throw_errno(-r, "sd_event_default");
  // The signals were blocked in main() before any thread existed; sd-event reads them from a
  // signalfd, so they are handled inside the loop like any other event.
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    sd_event_source* source = nullptr;
    r = sd_event_add_signal(event_, &source, signal, &Daemon::on_signal, this);
    if (r < 0) gaptrain::throw_errno(-r, "sd_event_add_signal");
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
  if (r < 0) gaptrain::throw_errno(-r, "sd_event_add_time");
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
      !controller_->jobs().jobs().empty() &&
      std::any_of(controller_->snapshot().jobs.begin(), controller_->snapshot().jobs.end(),
                  [&](const core::Job& job) {
                    return job.state == core::JobState::pending &&
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
  slurm_worker_->post([this, &slurm = slurm_, snapshot = controller_->snapshot(), now, full, mono,
                       load_config, config_needed]() mutable -> Worker::Done {
    core::SlurmQueries::Result result = slurm.poll(snapshot, now, full);
    std::optional<core::SlurmQueries::Config> slurm_config;
    if (result.ok && load_config) {
      core::SlurmQueries::Config loaded_config;
      const core::SlurmQueries::Result loaded = slurm.load_config(loaded_config);
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
void Daemon::note_slurm_behaviour(const core::SlurmControllerConfig& controller) {
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
      controller_->snapshot().partitions, config_.satellite_partition, config_.elastic_partitions,
      slurm_controller_ ? slurm_controller_->slurmctld_release : std::string());
  if (problems == satellite_partition_problems_) return;
  for (const std::string& problem : problems) log::warning(problem);
  satellite_partition_problems_ = std::move(problems);
}

void Daemon::polled(core::SlurmQueries::Result result, core::Snapshot snapshot,
                    std::optional<core::SlurmQueries::Config> slurm_config, std::int64_t now,
                    bool full, std::uint64_t mono) {
  if (slurm_config) {
    slurm_user_ = slurm_config->slurm_user;
    private_data_ = slurm_config->private_data;
    metrics_.set_private_data(slurm_config->private_data);
    note_slurm_behaviour(slurm_config->controller);
  }
  // While elastic jobs hold nodes, a regular job's submission (no plugin event) must be seen
  // soon: it may be waiting for them.
  const double interval_s = controller_->jobs().jobs().empty()
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
  // The state file's jobs are restored by the first poll, once Slurm said which still run.
  const std::optional<core::SavedState> saved = state_loaded_ ? std::nullopt : load_state();
  // A pause or drain asked for before this first poll is the admin's latest word: it stands.
  if (saved && !operation_asked_ && saved->operation != operation_) {
    operation_ = saved->operation;
    metrics_.set_operation(operation_);
    log::info("operation restored", {{"OPERATION", std::string(to_string(operation_))}});
  }
  // What this poll and its act() decide with (Slurm's behaviour may have changed above).
  update_controller_settings();
  const core::Now polled_at{.mono = static_cast<double>(mono) / static_cast<double>(kUsecPerS),
                            .wall = now};
  for (const core::Note& note :
       controller_->observe(std::move(snapshot), polled_at, saved ? &*saved : nullptr)) {
    log::write(note);
  }
  // With slurmctld's configuration: at the first poll and every full one (a reconfigure that
  // changes the partitions shows there), not at every watch poll.
  if (slurm_config) note_satellite_partition();
  // Registered now, they are planned by the act() below.
  for (const WaitingRegistration& waiting : std::exchange(awaiting_answer_, {})) {
    on_registration(waiting.request, waiting.uid, waiting.peer, waiting.id, true);
  }
  last_solve_ms_.reset();
  act();
}

void Daemon::update_controller_settings() {
  controller_->set_settings(cycle_settings(config_, slurm_behaviour_, operation_),
                            resizer_settings(config_));
  controller_->set_history_limits(history_limits(config_));
}

core::Now Daemon::now() const {
  return core::Now{.mono = static_cast<double>(mono_now(event_)) / static_cast<double>(kUsecPerS),
                   .wall = wall_now(),
                   .wall_precise = wall_now_precise()};
}

// What act() did on the worker: the copy it changed, and the cycle's outcome.
struct Daemon::ActOutcome {
  core::Controller controller;
  core::CycleOutcome cycle;
  core::Now decided_at;
};

void Daemon::act() {
  const core::Now at = now();
  acting_ = true;
  // A copy, handed over: the loop keeps its own to answer status meanwhile, and holds back what
  // would change it (hold_while_acting) until the outcome replaces it.
  slurm_worker_->post([this, at, controller = *controller_]() mutable -> Worker::Done {
    try {
      core::CycleOutcome outcome = controller.decide(at);
      return [this, outcome = ActOutcome{std::move(controller), std::move(outcome), at}]() mutable {
        acted(std::move(outcome));
      };
    } catch (const std::exception& e) {
      // The loop keeps its own copies, unchanged: every job stays as it is until the next poll.
      return [this, what = std::string(e.what())] { cycle_failed(what); };
    }
  });
}

void Daemon::acted(ActOutcome outcome) {
  acting_ = false;
  controller_.emplace(std::move(outcome.controller));
  controller_->record(outcome.cycle, outcome.decided_at);
  update_controller_settings();  // the copy decided with those of its start: a reload since?
  for (const core::Note& note : outcome.cycle.notes) log::write(note);
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
  if (const auto& allocation = outcome.cycle.allocation) {
    metrics_.observe_solve(allocation->solve_ms / 1000.0);
    last_solve_ms_ = allocation->solve_ms;
    if (allocation->call_status != allocator::CallStatus::ok) {
      log::warning("allocator failed, keeping every job as it is",
                   {{"REASON", allocation->message}});
    }
  }
  save_state();
  for (const double seconds : controller_->resizer().take_reclaim_latencies()) {
    metrics_.observe_reclaim(seconds);
  }
  metrics_.update(controller_->snapshot(), controller_->holes(), controller_->jobs(),
                  config_.elastic_partitions, controller_->resizer().counts(), events_, now().mono);

  if (poll_observer_) {
    const auto poll_usec = static_cast<double>(mono_now_uncached() - cycle_started_);
    poll_observer_({controller_->snapshot().nodes.size(), controller_->holes().size(),
                    poll_usec / 1000.0, last_solve_ms_, outcome.decided_at,
                    std::exchange(registered_, {})});
  }

  if (!ready_) {
    ready_ = true;
    sd_notify(0, "READY=1");
    log::info("ready", {{"NODES", controller_->snapshot().nodes.size()}});
  }
  sd_notifyf(0, "STATUS=%zu nodes, %zu holes, %zu elastic jobs",
             controller_->snapshot().nodes.size(), controller_->holes().size(),
             controller_->jobs().jobs().size());

  const double interval_s = controller_->jobs().jobs().empty()
                                ? config_.poll_interval_s
                                : std::min(config_.poll_interval_s, config_.watch_interval_s);
  auto delay = static_cast<std::uint64_t>(interval_s * static_cast<double>(kUsecPerS));
  // A drain completes by its deadline even when no launcher reports (the poll runs act()).
  if (!controller_->resizer().drains().empty() ||
      std::any_of(controller_->snapshot().nodes.begin(), controller_->snapshot().nodes.end(),
                  [](const core::Node& n) { return n.state == core::NodeState::completing; })) {
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

void Daemon::poll_for_registration() {
  poll_no_sooner_than(std::max(last_poll_mono_ + kMinPollSpacingUsec,
                               last_registration_poll_mono_ + kRegistrationPollSpacingUsec));
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
    core::DaemonConfig fresh = core::parse_config(read_text_file(config_path_));
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
    update_controller_settings();
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

}  // namespace gaptrain::daemon
