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
#include "gaptrain/input_error.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
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

// sd_event_now() is the time the loop woke up: the same all through one callback.
std::uint64_t mono_now_uncached() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * kUsecPerS +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000;
}

std::int64_t wall_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
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
      },
      request);
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
      resizer_(actions, resizer_settings()) {
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

  server_ = std::make_unique<LineServer>(
      event_,
      [this](std::string_view line, const std::string& peer) { return handle_line(line, peer); },
      [this](const std::string& peer, const std::string& reason) {
        ++events_.rejected;
        log::warning("request rejected", {{"UID", "unknown"}, {"REASON", reason}, {"PEER", peer}});
        note_rejection(peer);
      });
  server_->set_accept_filter(
      [this](const std::string& peer) { return limiter_.allowed(peer_address(peer), now().mono); });
  server_->on_idle([this] {
    if (draining_) sd_event_exit(event_, 0);
  });
  server_->listen(config_.listen);
  log::info("listening", {{"LISTEN", to_string(config_.listen)}});
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
  const std::uint64_t started = mono_now_uncached();
  const std::uint64_t mono = mono_now(event_);
  // Backfill re-plans pending jobs (start_time, sched_nodes) without bumping the job table's
  // update time: while a regular job waits and elastic jobs hold nodes, every poll is a full
  // one, or a reclaim would wait for the periodic full load.
  const bool regular_waiting =
      !elastic_.jobs().empty() &&
      std::any_of(snapshot_.jobs.begin(), snapshot_.jobs.end(), [&](const Job& job) {
        return job.state == JobState::pending && job.partition != config_.elastic_partition;
      });
  const bool full =
      last_full_poll_mono_ == 0 || regular_waiting || mono - last_full_poll_mono_ >= kFullPollUsec;
  last_poll_mono_ = mono;
  const std::int64_t now = wall_now();
  SlurmQueries::Result result = slurm_.poll(snapshot_, now, full);
  if (result.ok && !slurm_user_) {
    uid_t uid = 0;
    result = slurm_.load_slurm_user(uid);
    if (result.ok) slurm_user_ = uid;
  }
  if (result.ok && !slurm_behaviour_) {
    SlurmControllerConfig controller;
    result = slurm_.load_controller_config(controller);
    if (result.ok) {
      slurm_behaviour_ = behaviour_for(controller);
      log::info("slurm release", {{"SLURMCTLD", controller.slurmctld_release},
                                  {"BUILT_AGAINST", controller.built_release}});
      for (const std::string& notice : slurm_behaviour_->notices) log::warning(notice);
    }
  }

  // While elastic jobs hold nodes, a regular job's submission (no plugin event) must be seen
  // soon: it may be waiting for them.
  const double interval_s = elastic_.jobs().empty()
                                ? config_.poll_interval_s
                                : std::min(config_.poll_interval_s, config_.watch_interval_s);
  auto delay = static_cast<std::uint64_t>(interval_s * static_cast<double>(kUsecPerS));
  if (!result.ok) {
    if (!poll_failing_) log::warning("cannot poll Slurm", {{"REASON", result.error}});
    poll_failing_ = true;
    poll_error_ = result.error;
    sd_notifyf(0, "STATUS=Cannot poll Slurm: %s", result.error.c_str());
    arm_poll_timer(delay);
    return;
  }
  if (poll_failing_) log::info("polling Slurm again");
  poll_failing_ = false;
  if (full) last_full_poll_mono_ = mono;
  last_poll_ = now;

  std::vector<Hole> holes = find_holes(snapshot_, holes_);
  // Indexed by node, not searched: thousands of holes on each side after a burst of job ends.
  std::map<std::string_view, const Hole*> before;
  for (const Hole& hole : holes_) before.emplace(hole.node, &hole);
  std::set<std::string_view> after;
  for (const Hole& hole : holes) {
    after.insert(hole.node);
    const auto old = before.find(hole.node);
    if (old == before.end()) {
      log::info("hole opened", {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
    } else if (old->second->predicted_end != hole.predicted_end) {
      log::debug("hole end changed",
                 {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
    }
  }
  for (const Hole& hole : holes_) {
    if (!after.contains(hole.node)) {
      log::info("hole closed", {{"NODE", hole.node}, {"HOLE_END", end_text(hole.predicted_end)}});
    }
  }
  holes_ = std::move(holes);
  if (!state_loaded_) load_state();
  for (const std::uint32_t job_id : elastic_.refresh(snapshot_)) {
    log::info("elastic job ended, forgotten", {{"JOB_ID", job_id}});
  }
  last_solve_ms_.reset();
  act();
  save_state();
  for (const double seconds : resizer_.take_reclaim_latencies()) metrics_.observe_reclaim(seconds);
  metrics_.update(snapshot_, holes_, elastic_, config_.elastic_partition, resizer_.counts(),
                  events_);

  if (poll_observer_) {
    const auto poll_usec = static_cast<double>(mono_now_uncached() - started);
    poll_observer_({snapshot_.nodes.size(), holes_.size(), poll_usec / 1000.0, last_solve_ms_});
  }

  if (!ready_) {
    ready_ = true;
    sd_notify(0, "READY=1");
    log::info("ready", {{"NODES", snapshot_.nodes.size()}});
  }
  sd_notifyf(0, "STATUS=%zu nodes, %zu holes, %zu elastic jobs", snapshot_.nodes.size(),
             holes_.size(), elastic_.jobs().size());

  // A drain completes by its deadline even when no launcher reports (the poll runs act()).
  if (!resizer_.drains().empty() ||
      std::any_of(snapshot_.nodes.begin(), snapshot_.nodes.end(),
                  [](const Node& n) { return n.state == NodeState::completing; })) {
    delay = std::min(delay, kCompletingPollUsec);
  }
  arm_poll_timer(delay);
}

void Daemon::load_state() {
  state_loaded_ = true;
  const std::string& path = config_.state_file;
  if (path.empty()) return;
  DaemonState state;
  try {
    const std::optional<std::string> text = read_file_if_exists(path);
    if (!text) return;
    state = decode_state(*text);
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
    const Job* job = find_job(snapshot_, id);
    if (auto refused = elastic_.add(saved.registration, job, saved.registered_at)) {
      log::info("saved elastic job not restored", {{"JOB_ID", id}, {"REASON", *refused}});
      continue;
    }
    elastic_.restore_learned(id, saved.learned_curve, saved.learned_costs);
    const ElasticJob& elastic = elastic_.jobs().at(id);
    log::info("elastic job restored", {{"JOB_ID", id},
                                       {"USER", elastic.user},
                                       {"NODES", join_nodes(elastic.nodes)},
                                       {"CURVE", to_string(elastic.curve_source)}});
  }
  std::map<std::uint32_t, std::uint32_t> limits;
  for (const auto& [id, minutes] : state.user_limits) {
    if (find_job(snapshot_, id) != nullptr) limits[id] = minutes;
  }
  resizer_.restore_user_limits(limits);
}

void Daemon::save_state() {
  const std::string& path = config_.state_file;
  if (path.empty() || !state_loaded_) return;
  DaemonState state;
  for (const auto& [id, job] : elastic_.jobs()) state.jobs.push_back(saved_job(job));
  state.user_limits = resizer_.user_limits();
  const std::string text = encode_state(state);
  if (text == saved_state_) return;
  try {
    write_file_atomically(path, text);
    saved_state_ = text;
    if (!state_write_error_.empty()) log::info("state file written again", {{"PATH", path}});
    state_write_error_.clear();
  } catch (const std::system_error& e) {
    if (state_write_error_ != e.what()) {
      log::warning("cannot write the state file: a restart would forget the elastic jobs",
                   {{"PATH", path}, {"REASON", e.what()}});
    }
    state_write_error_ = e.what();
  }
}

Now Daemon::now() const {
  return Now{.mono = static_cast<double>(mono_now(event_)) / static_cast<double>(kUsecPerS),
             .wall = wall_now()};
}

PlannerSettings Daemon::planner_settings() const {
  PlannerSettings settings;
  settings.horizon_s = config_.horizon_s;
  settings.elastic_partition = config_.elastic_partition;
  settings.idle_reserve_nodes = config_.idle_reserve_nodes;
  if (slurm_behaviour_) settings.shrink_own_nodes = slurm_behaviour_->shrink_own_nodes;
  return settings;
}

ResizerSettings Daemon::resizer_settings() const {
  ResizerSettings settings;
  settings.drain_grace_s = config_.drain_grace_s;
  settings.reclaim_grace_s = config_.reclaim_grace_s;
  settings.lease_s = config_.lease_s;
  return settings;
}

void Daemon::act() {
  const Now at = now();
  resizer_.forget_except(elastic_, snapshot_);
  std::vector<ElasticJob> held;
  for (const auto& [id, job] : elastic_.jobs()) held.push_back(job);
  const std::set<std::uint32_t> served = resizer_.served(snapshot_, at);
  const auto reclaim = nodes_to_reclaim(snapshot_, held, config_.elastic_partition, served);
  std::vector<Hole> growable = holes_;
  const std::set<std::string> promised = resizer_.promised(snapshot_, at);
  std::erase_if(growable, [&](const Hole& hole) { return promised.contains(hole.node); });
  const Plan next = plan(snapshot_, growable, resizer_.planning_view(elastic_), at.wall,
                         planner_settings(), served);
  if (next.allocation) {
    metrics_.observe_solve(next.allocation->solve_ms / 1000.0);
    last_solve_ms_ = next.allocation->solve_ms;
  }
  if (next.allocation && next.allocation->call_status != CallStatus::ok) {
    log::warning("allocator failed, keeping every job as it is",
                 {{"REASON", next.allocation->message}});
  }
  if (!config_.resize) {
    for (const Action& action : next.actions) {
      log::debug("action not applied (resize is off)", {{"ACTION", to_string(action.kind)},
                                                        {"JOB_ID", action.job_id},
                                                        {"NODES", join_nodes(action.nodes)},
                                                        {"REASON", action.reason}});
    }
    return;
  }
  std::set<std::string> reclaimed;
  for (const auto& [node, waiting] : reclaim.nodes) reclaimed.insert(node);
  resizer_.hurry(reclaim.nodes, at);
  bool changed = resizer_.release_orphans(snapshot_);
  changed |= resizer_.hold_unstarted_admissions(snapshot_, at);
  changed |= resizer_.apply(next, snapshot_, elastic_, at);
  changed |= resizer_.advance(elastic_, at);
  resizer_.keep_leases(snapshot_, elastic_, reclaimed, at,
                       planned_takeovers(snapshot_, held, config_.elastic_partition));
  // Slurm changed: see it at once (and re-plan with it) rather than at the next interval.
  if (changed) poll_soon();
}

void Daemon::arm_poll_timer(std::uint64_t delay_usec) {
  if (draining_) return;
  sd_event_source_set_time(poll_timer_, mono_now(event_) + delay_usec);
  sd_event_source_set_enabled(poll_timer_, SD_EVENT_ONESHOT);
}

void Daemon::poll_soon() {
  if (draining_) return;
  const std::uint64_t now = mono_now(event_);
  const std::uint64_t when = std::max(now, last_poll_mono_ + kMinPollSpacingUsec);
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
    DaemonConfig fresh = load_config(config_path_);
    if (fresh.listen != config_.listen) server_->listen(fresh.listen);
    if (fresh.metrics_listen != config_.metrics_listen) {
      log::warning("metrics_listen changes at the next restart", {{"CONFIG", config_path_}});
      fresh.metrics_listen = config_.metrics_listen;
    }
    config_ = std::move(fresh);
    log::set_threshold(to_log_level(config_.log_level));
    resizer_.set_settings(resizer_settings());
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
  // Open connections end within their deadlines; the last one to close ends the loop.
  if (server_->connections() == 0) sd_event_exit(event_, 0);
}

void Daemon::note_rejection(const std::string& peer) {
  const std::string address = peer_address(peer);
  if (limiter_.rejected(address, now().mono)) {
    log::warning("peer blocked: too many refused requests",
                 {{"PEER", address}, {"BLOCK_S", std::lround(RejectionLimits{}.block_s)}});
  }
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

std::string Daemon::handle_line(std::string_view line, const std::string& peer) {
  try {
    munge::Opened opened;
    try {
      opened = munge::open(line, config_.munge_socket);
    } catch (const munge::MungeError& e) {
      note_rejection(peer);
      return reject(peer, std::nullopt, "unknown", std::string("not authenticated: ") + e.what());
    }
    protocol::Request request;
    try {
      request = protocol::decode(opened.payload);
    } catch (const InputError& e) {
      note_rejection(peer);
      return reject(peer, opened.uid, "unknown", std::string("bad request: ") + e.what());
    }
    const RequestKind kind = kind_of(request);
    const std::string_view type = protocol::type_name(request);

    if (kind == RequestKind::status) {
      // Status requests are not counted as events: a monitoring loop would drown the count.
      Json::Value reply(Json::objectValue);
      reply["ok"] = true;
      reply["status"] = status_json(snapshot_, holes_, elastic_, events_, last_poll_);
      reply["status"]["actions"] = actions_json(resizer_, now().mono);
      // While slurmctld does not answer, the view above is the last one it gave.
      reply["status"]["slurm_error"] =
          poll_failing_ ? Json::Value(poll_error_) : Json::Value(Json::nullValue);
      return compact(reply);
    }
    if (kind == RequestKind::job_registration) {
      return on_registration(std::get<protocol::JobRegistration>(request), opened.uid, peer);
    }
    if (kind == RequestKind::launcher_report) {
      return on_launcher_report(std::get<protocol::LauncherReport>(request), opened.uid, peer);
    }
    // Until slurmctld told us who SlurmUser is, only root may send node events.
    if (auto refused = authorize(kind, opened.uid, slurm_user_.value_or(0), std::nullopt)) {
      note_rejection(peer);  // a forged node event
      return reject(peer, opened.uid, type, *refused);
    }
    if (const auto* freed = std::get_if<protocol::NodeFreed>(&request)) {
      on_node_event(true, freed->job_id, freed->node, opened.uid, false);
    } else if (const auto* taken = std::get_if<protocol::NodeTaken>(&request)) {
      on_node_event(false, taken->job_id, taken->node, opened.uid, taken->elastic);
    }
    ++events_.accepted;
    return R"({"ok":true})";
  } catch (const std::exception& e) {
    // Never let one request take the daemon down; the client learns it failed.
    log::error("internal error handling a request", {{"REASON", e.what()}, {"PEER", peer}});
    return error_reply(std::string("internal error: ") + e.what());
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

std::string Daemon::on_registration(const protocol::JobRegistration& request, uid_t uid,
                                    const std::string& peer) {
  const Job* job = find_job(snapshot_, request.job_id);
  if (job == nullptr || job->state != JobState::running) {
    // The job may have started after the last poll: ask Slurm now rather than refuse it.
    poll();
    job = find_job(snapshot_, request.job_id);
  }
  const std::optional<uid_t> owner =
      job ? std::optional<uid_t>(static_cast<uid_t>(job->user_id)) : std::nullopt;
  if (auto refused =
          authorize(RequestKind::job_registration, uid, slurm_user_.value_or(0), owner)) {
    return reject(peer, uid, "register", *refused);
  }
  if (auto refused = elastic_.add(request, job, wall_now())) {
    return reject(peer, uid, "register", *refused);
  }
  const ElasticJob& elastic = elastic_.jobs().at(request.job_id);
  ++events_.accepted;
  log::info("elastic job registered", {{"JOB_ID", request.job_id},
                                       {"UID", uid},
                                       {"USER", elastic.user},
                                       {"NODES", join_nodes(elastic.nodes)},
                                       {"BATCH_HOST", elastic.batch_host},
                                       {"MIN_NODES", elastic.min_nodes},
                                       {"MAX_NODES", elastic.max_nodes},
                                       {"CURVE", to_string(elastic.curve_source)}});
  save_state();
  return R"({"ok":true})";
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
  if (!elastic_.report(report, wall_now())) {
    return reject(peer, uid, "launcher",
                  "job " + std::to_string(report.job_id) +
                      " is not registered with gaptrain (submitted without --elastic, its "
                      "registration was not delivered, or it ended)");
  }
  // Acks complete drains at once: a regular job may be waiting for the shrink.
  if (config_.resize && resizer_.advance(elastic_, now())) poll_soon();
  const ElasticJob& job = elastic_.jobs().at(report.job_id);
  // Not counted as an event: like status, a steady stream would drown the plugin's count.
  if (first) {
    log::info("launcher reporting", {{"JOB_ID", report.job_id},
                                     {"UID", uid},
                                     {"RUNNING", join_nodes(report.running)},
                                     {"NODES", join_nodes(job.nodes)}});
  }
  // The job's nodes (the model keeps the batch host, the launcher's rendezvous host, first),
  // those of them it is asked to let go, and the satellites its steps run in.
  protocol::LaunchInstruction instruction;
  instruction.nodes = job.nodes;
  instruction.drain = resizer_.draining(report.job_id);
  instruction.allocations = job.satellites;
  return protocol::encode_reply(instruction);
}

}  // namespace gaptrain::daemon
