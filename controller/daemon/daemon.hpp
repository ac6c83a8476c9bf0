// gaptraind's core loop: validated config -> built objects -> sd-event loop. Owns the live
// model (snapshot, holes, elastic jobs) and the transport; asks and changes Slurm through the
// interfaces it is given (libslurm in gaptraind, a simulated cluster in the load generator);
// handles signals inside the loop (SIGTERM/SIGINT drain and exit 0, SIGHUP reloads the config)
// and talks to systemd (READY=1 once listening and the first poll succeeded, watchdog pings,
// STATUS=).
#pragma once

#include <systemd/sd-event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cluster.hpp"
#include "config.hpp"
#include "elastic_jobs.hpp"
#include "holes.hpp"
#include "line_server.hpp"
#include "metrics.hpp"
#include "planner.hpp"
#include "rejection_limiter.hpp"
#include "resizer.hpp"
#include "slurm_actions.hpp"
#include "slurm_queries.hpp"
#include "status.hpp"

namespace gaptrain::daemon {

// The daemon cannot start for a reason its message says (e.g. the metrics port is taken).
class StartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one successful poll did, for an observer (the load generator's measurements).
struct PollReport {
  std::size_t nodes = 0;
  std::size_t holes = 0;
  double poll_ms = 0.0;            // the whole poll: Slurm, model, plan, actions, state file
  std::optional<double> solve_ms;  // the allocator's, when it ran
};

class Daemon {
 public:
  // Binds the listening socket; throws std::system_error when it cannot. `slurm` and `actions`
  // must outlive the daemon; its event loop is the calling thread's default sd-event loop.
  Daemon(std::string config_path, DaemonConfig config, SlurmQueries& slurm, SlurmActions& actions);
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

  void poll();
  // Plans from the fresh model and carries the plan out (resizer.hpp); after every poll.
  void act();
  Now now() const;
  PlannerSettings planner_settings() const;
  ResizerSettings resizer_settings() const;
  // Polls as soon as the rate limit allows: a plugin event says the cluster changed.
  void poll_soon();
  void arm_poll_timer(std::uint64_t delay_usec);
  void reload();
  void drain();
  // The state file (state_file.hpp): read once, at the first successful poll (the jobs it names
  // must be matched with Slurm's); written whenever what it holds changed.
  void load_state();
  void save_state();

  std::string handle_line(std::string_view line, const std::string& peer);
  // Counts a refused request of `peer` (rejection_limiter.hpp); logs when its host is blocked.
  // Only what no legitimate sender does: transport refusals, failed authentication, requests
  // that do not decode, node events from other than root/SlurmUser. A launcher reporting
  // before its job registered is refused again and again, and must not block its node.
  void note_rejection(const std::string& peer);
  std::string reject(const std::string& peer, std::optional<uid_t> uid, std::string_view kind,
                     const std::string& reason);
  void on_node_event(bool freed, std::uint32_t job_id, const std::string& node, uid_t uid,
                     bool elastic);
  std::string on_registration(const protocol::JobRegistration& request, uid_t uid,
                              const std::string& peer);
  // Answers a job's launcher with its nodes (protocol::LaunchInstruction) and records the
  // progress it reports.
  std::string on_launcher_report(const protocol::LauncherReport& report, uid_t uid,
                                 const std::string& peer);

  std::string config_path_;
  DaemonConfig config_;
  sd_event* event_ = nullptr;
  std::unique_ptr<LineServer> server_;
  SlurmQueries& slurm_;
  Resizer resizer_;
  sd_event_source* poll_timer_ = nullptr;
  std::vector<sd_event_source*> signal_sources_;

  std::optional<uid_t> slurm_user_;  // loaded with the first successful poll
  // What slurmctld's configuration changes in gaptraind's behaviour, loaded with it.
  std::optional<SlurmBehaviour> slurm_behaviour_;
  Snapshot snapshot_;
  std::vector<Hole> holes_;
  ElasticJobs elastic_;
  EventCounts events_;
  Metrics metrics_;
  RejectionLimiter limiter_;
  std::optional<std::int64_t> last_poll_;  // epoch of the last successful poll
  std::uint64_t last_poll_mono_ = 0;       // CLOCK_MONOTONIC usec of the last poll attempt
  std::uint64_t last_full_poll_mono_ = 0;
  bool ready_ = false;
  bool draining_ = false;
  bool poll_failing_ = false;
  std::string poll_error_;  // why the last poll failed, while polls fail (shown in status)
  bool state_loaded_ = false;
  std::string saved_state_;              // the text last written to the state file
  std::string state_write_error_;        // the last failure to write it, logged once
  std::optional<double> last_solve_ms_;  // the allocator's time in the last act()
  std::function<void(const PollReport&)> poll_observer_;
};

}  // namespace gaptrain::daemon
