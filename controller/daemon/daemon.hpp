// gaptraind's core loop: validated config -> built objects -> sd-event loop. Owns the live
// model (snapshot, holes, elastic jobs) and the transport; asks and changes Slurm through the
// interfaces it is given (libslurm in gaptraind, a simulated cluster in the load generator).
// Nothing that may block runs on the loop's thread (worker.hpp): Slurm's queries and actions
// and the allocator run on one worker, one poll at a time, with the model handed over by value
// and back; munge decoding runs on another. The loop answers status and plugin events at once
// whatever Slurm does;
// handles signals inside the loop (SIGTERM/SIGINT drain and exit 0, SIGHUP reloads the config)
// and talks to systemd (READY=1 once listening and the first poll succeeded, watchdog pings,
// STATUS=).
#pragma once

#include <systemd/sd-event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/cluster.hpp"
#include "core/config.hpp"
#include "core/controller.hpp"
#include "core/cycle.hpp"
#include "core/elastic_jobs.hpp"
#include "core/holes.hpp"
#include "core/job_history.hpp"
#include "core/planner.hpp"
#include "core/resizer.hpp"
#include "core/slurm_actions.hpp"
#include "core/slurm_queries.hpp"
#include "failure_reporter.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "line_server.hpp"
#include "metrics.hpp"
#include "rejection_limiter.hpp"
#include "request_throttle.hpp"
#include "status.hpp"
#include "status_privacy.hpp"
#include "worker.hpp"

namespace gaptrain::daemon {

// The daemon cannot start for a reason its message says (e.g. the metrics port is taken).
class StartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one successful poll did, for an observer (the load generator's measurements, and the
// test that checks the simulator decides as the daemon does).
struct PollReport {
  std::size_t nodes = 0;
  std::size_t holes = 0;
  double poll_ms = 0.0;            // the whole poll: Slurm, model, plan, actions, state file
  std::optional<double> solve_ms;  // the allocator's, when it ran
  core::Now decided_at;            // the time the decision was made for
  // The jobs registered since the last report, in order: the model the decision saw had them.
  std::vector<std::uint32_t> registered;
};

class Daemon {
 public:
  // Binds the listening socket; throws std::system_error when it cannot. `slurm` and `actions`
  // must outlive the daemon; its event loop is the calling thread's default sd-event loop.
  Daemon(std::string config_path, core::DaemonConfig config, core::SlurmQueries& slurm,
         core::SlurmActions& actions);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Runs until SIGTERM/SIGINT; returns the exit status.
  int run();

  // Called on the loop's thread at the end of every successful poll.
  void set_poll_observer(std::function<void(const PollReport&)> observer) {
    poll_observer_ = std::move(observer);
  }

 private:
  static int on_poll_timer(sd_event_source* source, std::uint64_t usec, void* self);
  static int on_signal(sd_event_source* source, const signalfd_siginfo* info, void* self);

  // Starts a poll on the Slurm worker, unless one (or its act()) runs: then one follows it.
  void poll();
  // Logs slurmctld's release and what its configuration changes, when first seen or changed.
  void note_slurm_behaviour(const core::SlurmControllerConfig& controller);
  // Logs what satellite_partition_problems() finds, when first found or changed.
  void note_satellite_partition();
  // On the loop, with the worker's answer: the model takes the new snapshot, then act().
  void polled(core::SlurmQueries::Result result, core::Snapshot snapshot,
              std::optional<core::SlurmQueries::Config> slurm_config, std::int64_t now, bool full,
              std::uint64_t mono);
  // Plans from the fresh model and carries the plan out (resizer.hpp) on the Slurm worker, on a
  // copy of the controller that comes back with the outcome.
  void act();
  struct ActOutcome;
  void acted(ActOutcome outcome);
  // act() threw (a bug): the cycle ends with the model as it was.
  void cycle_failed(const std::string& what);
  // The end of a poll (and its act): the next one is timed, requests held meanwhile run.
  void end_cycle(std::uint64_t delay_usec);
  core::Now now() const;
  // The controller decides with gaptraind.json, Slurm's behaviour and the admin's operation as
  // they are now: set at each poll and reload, and again on the copy an act() hands back.
  void update_controller_settings();
  // Polls as soon as the rate limit allows: a plugin event says the cluster changed.
  void poll_soon();
  // The same, not before `not_before` (CLOCK_MONOTONIC usec).
  void poll_no_sooner_than(std::uint64_t not_before);
  // A poll for a registration of a job the last poll did not see running: such polls are spaced
  // so that registrations of unknown jobs, however many, cost slurmctld one poll a second.
  void poll_for_registration();
  void arm_poll_timer(std::uint64_t delay_usec);
  void reload();
  void drain();
  // The state file (state_file.hpp): read once, for the first successful poll to restore (the
  // jobs it names must be matched with Slurm's); written whenever what it holds changed.
  std::optional<core::SavedState> load_state();
  void save_state();
  // The answer to `gaptrain job ID`.
  std::string job_reply(std::uint32_t job_id, uid_t uid);

  // A request line: its munge credential is opened on the auth worker, then on_request().
  void handle_line(std::string_view line, const std::string& peer, LineServer::ConnectionId id);
  void on_request(const munge::Opened* opened, const std::string& munge_error,
                  const std::string& peer, LineServer::ConnectionId id);
  // Counts a refused request of `sender` (rejection_limiter.hpp); logs when it is blocked.
  // Only what no legitimate sender does: transport refusals, failed authentication, requests
  // that do not decode, node events from other than root/SlurmUser, refused registrations. A
  // launcher reporting before its job registered is refused again and again, and is not counted.
  void note_rejection(const std::string& sender);
  // The same, charged to an authenticated uid; never for root or SlurmUser.
  void note_rejection(uid_t uid);
  bool privileged(uid_t uid) const;
  std::string blocked_reason(uid_t uid) const;
  std::string reject(const std::string& peer, std::optional<uid_t> uid, std::string_view kind,
                     const std::string& reason);
  void on_node_event(bool freed, std::uint32_t job_id, const std::string& node, uid_t uid,
                     bool elastic);
  // A registration of a job the model does not show running waits for the next poll that
  // starts after it (shared by every registration waiting: one poll for any number of them).
  // `polled`: that poll has run, so what the model says is final.
  void on_registration(const protocol::JobRegistration& request, uid_t uid, const std::string& peer,
                       LineServer::ConnectionId id, bool polled);
  // Answers a job's launcher with its nodes (protocol::LaunchInstruction) and records the
  // progress it reports.
  std::string on_launcher_report(const protocol::LauncherReport& report, uid_t uid,
                                 const std::string& peer);
  // What changes the elastic jobs waits while act() works on their copy (it would be lost).
  bool hold_while_acting(std::function<void()> request);

  std::string config_path_;
  core::DaemonConfig config_;
  sd_event* event_ = nullptr;
  std::unique_ptr<LineServer> server_;
  core::SlurmQueries& slurm_;
  core::SlurmActions& actions_;
  // The model and the decision (core/controller.hpp). Replaced by act()'s outcome; the loop's
  // copy is read meanwhile (status).
  std::optional<core::Controller> controller_;
  sd_event_source* poll_timer_ = nullptr;
  std::vector<sd_event_source*> signal_sources_;

  std::optional<uid_t> slurm_user_;                // loaded with the first successful poll
  std::optional<core::PrivateData> private_data_;  // the same; what `gaptrain status` hides
  // What slurmctld's configuration changes in gaptraind's behaviour, loaded with it.
  std::optional<core::SlurmControllerConfig> slurm_controller_;
  // What satellite_partition_problems() said last: said again only when it changes.
  std::vector<std::string> satellite_partition_problems_;
  std::optional<core::SlurmBehaviour> slurm_behaviour_;
  EventCounts events_;
  Metrics metrics_;
  RejectionLimiter limiter_;
  RequestThrottle status_throttle_;        // per uid; root and SlurmUser are not throttled
  std::optional<std::int64_t> last_poll_;  // epoch of the last successful poll
  std::uint64_t last_poll_mono_ = 0;       // CLOCK_MONOTONIC usec of the last poll attempt
  std::uint64_t last_full_poll_mono_ = 0;
  bool ready_ = false;
  bool draining_ = false;
  bool poll_failing_ = false;
  std::string poll_error_;  // why the last poll failed, while polls fail (shown in status)
  bool state_loaded_ = false;
  std::string saved_state_;               // the text last written to the state file
  FailureReporter state_write_failures_;  // failures to write it: logged once a run
  std::optional<double> last_solve_ms_;   // the allocator's time in the last act()
  // Jobs the last plan set aside for bad input (Plan::set_aside): each is logged once.
  std::set<std::uint32_t> set_aside_;
  // Idle nodes the last plan kept for waiting regular jobs: each logged when kept anew.
  std::map<std::string, core::KeptIdle> kept_idle_;
  // Held jobs the queue policy holds back, with why (CycleOutcome::waiting), for status.
  std::vector<std::pair<std::uint32_t, std::string>> queue_waiting_;
  // What an admin lets gaptraind do (gaptrain pause, resume, drain), kept in the state file.
  core::Operation operation_ = core::Operation::running;
  bool operation_asked_ = false;  // an admin set it in this run: the saved one does not apply
  // `gaptrain pause|resume|drain` ("pause", "resume", "drain"), authorized already: the reply.
  std::string on_operation(const std::string& request, uid_t uid);
  std::function<void(const PollReport&)> poll_observer_;
  std::vector<std::uint32_t> registered_;  // since the last PollReport

  struct WaitingRegistration {
    protocol::JobRegistration request;
    uid_t uid = 0;
    std::string peer;
    LineServer::ConnectionId id = 0;
  };
  std::vector<WaitingRegistration> awaiting_poll_;    // for a poll not started yet
  std::vector<WaitingRegistration> awaiting_answer_;  // for the poll that runs
  std::vector<std::function<void()>> held_requests_;  // while acting_
  bool cycle_running_ = false;  // a poll, or its act(), is on the Slurm worker
  bool acting_ = false;         // act() works on a copy of controller_
  std::uint64_t cycle_started_ = 0;
  std::uint64_t last_registration_poll_mono_ = 0;
  // A poll asked for while one ran, and the earliest it may start: armed when that one ends.
  std::optional<std::uint64_t> poll_wanted_at_;
  // Last, so they stop (and their threads end) before what their tasks' answers touch goes.
  std::unique_ptr<Worker> slurm_worker_;
  std::unique_ptr<Worker> auth_worker_;
};

}  // namespace gaptrain::daemon
