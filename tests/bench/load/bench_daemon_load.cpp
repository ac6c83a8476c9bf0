// bench_daemon_load: gaptraind under the plugin events of a large cluster. The real Daemon (its
// sd-event loop, LineServer on 127.0.0.1, munge authentication, planner, allocator, resizer,
// state file) runs on a thread of this process against the simulator's replayed Slurm
// (simulated_slurm.hpp)
// and a private munged; sender threads send the plugin's events as the plugin does. After a
// warm-up (the elastic jobs register, as root), each round is
//   1. a burst of regular-job ends: thousands of nodes freed at once in the simulated Slurm,
//      then one node_freed per node, as fast as the senders go;
//   2. a burst of regular-job starts on idle nodes: one node_taken per node.
// Per burst: events sent/accepted/rejected/undelivered, events/s, reply latency, the time
// until the daemon's model holds the burst (the end of its first poll that saw it, then checked
// with a status request), polls and allocator solves during the burst (the batching), solve
// and poll times, and the process's RSS afterwards (daemon + simulated cluster; the senders run in
// a process of their own, sender_process.hpp).
//
//   bench_daemon_load --nodes 10000 --bursts 5 --burst-nodes 3000 --senders 8 --json out.json
//
// --check turns it into a test: exit 1 unless every event was accepted, polls were at least
// 100 ms apart and fewer than half the events, and the daemon's holes match the simulated
// cluster. Exit 77 (skipped) when no
// private munged can run here (not root, munge not installed).
#include <arpa/inet.h>
#include <json/json.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon.hpp"
#include "event_senders.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/wire_client.hpp"
#include "private_munged.hpp"
#include "sender_process.hpp"
#include "simulated_slurm.hpp"

namespace {

using namespace gaptrain;
using bench::NodeEvent;
using Clock = std::chrono::steady_clock;

constexpr int kSkipped = 77;
constexpr auto kModelDeadline = std::chrono::seconds(60);

struct Options {
  bench::ClusterShape cluster;
  int bursts = 5;
  int burst_nodes = 3000;
  int take_nodes = 2000;
  int senders = 8;
  int timeout_ms = static_cast<int>(plugin::PluginConfig{}.timeout.count());
  double settle_s = 1.0;
  std::string log_level = "info";
  std::string json;
  std::string daemon_log;
  bool check = false;
};

// What the daemon's poll observer saw, with the simulated cluster's version that poll read.
struct PollRecord {
  Clock::time_point end;
  std::uint64_t version = 0;
  double poll_ms = 0.0;
  std::optional<double> solve_ms;
};

class PollLog {
 public:
  void add(PollRecord record) {
    {
      const std::lock_guard lock(mutex_);
      records_.push_back(record);
    }
    changed_.notify_all();
  }
  // The end of the first poll that read `version` or later; empty after the deadline.
  std::optional<Clock::time_point> wait_for_version(std::uint64_t version) {
    std::unique_lock lock(mutex_);
    std::optional<Clock::time_point> seen;
    changed_.wait_until(lock, Clock::now() + kModelDeadline, [&] {
      for (const PollRecord& r : records_) {
        if (r.version >= version) {
          seen = r.end;
          return true;
        }
      }
      return false;
    });
    return seen;
  }
  std::vector<PollRecord> between(Clock::time_point from, Clock::time_point to) const {
    const std::lock_guard lock(mutex_);
    std::vector<PollRecord> out;
    for (const PollRecord& r : records_) {
      if (r.end >= from && r.end <= to) out.push_back(r);
    }
    return out;
  }
  std::vector<PollRecord> all() const {
    const std::lock_guard lock(mutex_);
    return records_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<PollRecord> records_;
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(rank, values.size() - 1)];
}

// p50, p99 and max of `values`, as JSON.
Json::Value spread(const std::vector<double>& values) {
  Json::Value j(Json::objectValue);
  j["p50"] = percentile(values, 0.5);
  j["p99"] = percentile(values, 0.99);
  j["max"] = percentile(values, 1.0);
  return j;
}

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// VmRSS and VmHWM of this process, in MiB.
struct Memory {
  double rss_mib = 0.0;
  double peak_mib = 0.0;
};

Memory memory_now() {
  std::ifstream status("/proc/self/status");
  Memory memory;
  for (std::string line; std::getline(status, line);) {
    const auto kib = [&] { return std::strtod(line.c_str() + 6, nullptr) / 1024.0; };
    if (line.starts_with("VmRSS:")) memory.rss_mib = kib();
    if (line.starts_with("VmHWM:")) memory.peak_mib = kib();
  }
  return memory;
}

std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// The daemon's view through `gaptrain status`'s request: its holes and the elastic jobs' nodes.
struct DaemonView {
  std::set<std::string> holes;
  std::set<std::string> elastic_nodes;
  std::string error;
};

DaemonView ask_status(const plugin::PluginConfig& config) {
  DaemonView view;
  const wire::Reply reply =
      wire::request(*config.controller,
                    munge::seal(protocol::encode(protocol::StatusRequest{}), config.munge_socket),
                    std::chrono::seconds(10));
  Json::Value answer;
  Json::CharReaderBuilder builder;
  const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  std::string errors;
  if (!reply.delivered ||
      !reader->parse(reply.text.data(), reply.text.data() + reply.text.size(), &answer, &errors)) {
    view.error = "status: " + reply.text.substr(0, 200);
    return view;
  }
  for (const Json::Value& hole : answer["status"]["holes"])
    view.holes.insert(hole["node"].asString());
  for (const Json::Value& job : answer["status"]["elastic_jobs"]) {
    for (const Json::Value& node : job["nodes"]) view.elastic_nodes.insert(node.asString());
  }
  return view;
}

struct BurstResult {
  std::string kind;  // "free" or "take"
  bench::SendStats sent;
  double model_ms = 0.0;  // burst start -> end of the first poll that saw it; <0: never
  std::size_t polls = 0;  // polls from the burst's start until its events were all answered
  std::vector<double> solve_ms;
  double max_poll_ms = 0.0;
  double duration_s = 0.0;  // from the burst's start to its last reply or the poll that saw it
  bench::SlurmCalls calls_before;
  bench::SlurmCalls calls_after;
  Memory memory;
  std::vector<std::string> failures;  // checks that failed
};

class LoadRun {
 public:
  LoadRun(const Options& options, bench::SimulatedSlurm& slurm, PollLog& polls,
          plugin::PluginConfig plugin, bench::SenderProcess& senders)
      : options_(options),
        slurm_(slurm),
        polls_(polls),
        plugin_(std::move(plugin)),
        senders_(senders) {}

  std::vector<std::string> register_elastic_jobs() {
    std::vector<std::string> failures;
    for (const bench::ElasticJobSpec& job : slurm_.elastic_jobs()) {
      protocol::JobRegistration registration;
      registration.job_id = job.job_id;
      registration.user = job.user;
      registration.batch_host = job.batch_host;
      registration.min_nodes = 1;
      registration.max_nodes = job.max_nodes;
      plugin::PluginConfig patient = plugin_;
      patient.timeout = std::chrono::seconds(10);  // registrations poll Slurm first
      const plugin::Outcome outcome = plugin::notify(patient, registration);
      if (!outcome.ok) failures.push_back("registration: " + outcome.message);
    }
    return failures;
  }

  BurstResult burst(bool free) {
    BurstResult result;
    result.kind = free ? "free" : "take";
    result.calls_before = slurm_.calls();
    const Clock::time_point start = Clock::now();
    const std::vector<NodeEvent> events = free ? slurm_.end_regular_jobs(options_.burst_nodes)
                                               : slurm_.start_regular_jobs(options_.take_nodes);
    const std::uint64_t version = slurm_.version();
    result.sent = senders_.send(events, free);
    const std::optional<Clock::time_point> seen = polls_.wait_for_version(version);
    result.model_ms = seen ? ms_between(start, *seen) : -1.0;
    const Clock::time_point end = std::max(Clock::now(), seen.value_or(start));
    result.duration_s = std::chrono::duration<double>(end - start).count();
    for (const PollRecord& poll : polls_.between(start, end)) {
      ++result.polls;
      if (poll.solve_ms) result.solve_ms.push_back(*poll.solve_ms);
      result.max_poll_ms = std::max(result.max_poll_ms, poll.poll_ms);
    }
    check(result, events, free);
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.settle_s));
    result.calls_after = slurm_.calls();
    result.memory = memory_now();
    return result;
  }

 private:
  void check(BurstResult& result, const std::vector<NodeEvent>& events, bool free) {
    auto fail = [&](std::string what) { result.failures.push_back(std::move(what)); };
    if (result.model_ms < 0) fail("the daemon did not poll the burst within 60 s");
    if (result.sent.accepted != events.size()) {
      fail(std::to_string(events.size() - result.sent.accepted) + " of " +
           std::to_string(events.size()) + " events not accepted: " + result.sent.first_failure);
    }
    // Batching, stated so that a slow machine does not fail it: polls start at least 100 ms
    // apart whatever the number of events, and a burst is never one poll per event or two.
    const double spacing_s = 0.1;
    const auto bound = static_cast<std::size_t>(result.duration_s / spacing_s) + 2;
    if (result.polls > bound) {
      fail(std::to_string(result.polls) + " polls in " + std::to_string(result.duration_s) +
           " s: closer than 100 ms apart");
    }
    if (events.size() >= 50 && result.polls * 2 > events.size()) {
      fail(std::to_string(result.polls) + " polls for " + std::to_string(events.size()) +
           " events: not batched");
    }
    const DaemonView view = ask_status(plugin_);
    if (!view.error.empty()) return fail(view.error);
    std::size_t wrong = 0;
    for (const NodeEvent& event : events) {
      const bool held = view.holes.contains(event.node) || view.elastic_nodes.contains(event.node);
      if (free ? !held : view.holes.contains(event.node)) ++wrong;
    }
    if (wrong > 0) {
      fail(std::to_string(wrong) +
           (free ? " freed nodes neither holes nor elastic" : " taken nodes still holes"));
    }
    // Without elastic jobs nothing else changes the cluster: the holes are exactly its idle
    // nodes.
    if (options_.cluster.elastic_jobs == 0 && view.holes != slurm_.idle_nodes()) {
      fail("the daemon's holes (" + std::to_string(view.holes.size()) +
           ") are not the cluster's idle nodes (" + std::to_string(slurm_.idle_nodes().size()) +
           ")");
    }
  }

  const Options& options_;
  bench::SimulatedSlurm& slurm_;
  PollLog& polls_;
  plugin::PluginConfig plugin_;
  bench::SenderProcess& senders_;
};

Json::Value to_json(const BurstResult& b) {
  Json::Value j(Json::objectValue);
  j["kind"] = b.kind;
  j["events"] = Json::UInt64{b.sent.sent};
  j["accepted"] = Json::UInt64{b.sent.accepted};
  j["rejected"] = Json::UInt64{b.sent.rejected};
  j["undelivered"] = Json::UInt64{b.sent.undelivered};
  j["send_s"] = b.sent.seconds;
  j["events_per_s"] = b.sent.seconds > 0 ? static_cast<double>(b.sent.sent) / b.sent.seconds : 0;
  j["latency_ms"] = spread(b.sent.latency_ms);
  j["model_ms"] = b.model_ms;
  j["polls"] = Json::UInt64{b.polls};
  j["solves"] = Json::UInt64{b.solve_ms.size()};
  j["solve_ms"]["p50"] = percentile(b.solve_ms, 0.5);
  j["solve_ms"]["max"] = percentile(b.solve_ms, 1.0);
  j["max_poll_ms"] = b.max_poll_ms;
  j["actions"] = Json::UInt64{b.calls_after.actions() - b.calls_before.actions()};
  j["grown_nodes"] = Json::UInt64{b.calls_after.grown_nodes - b.calls_before.grown_nodes};
  j["rss_mib"] = b.memory.rss_mib;
  j["peak_rss_mib"] = b.memory.peak_mib;
  Json::Value failures(Json::arrayValue);
  for (const std::string& f : b.failures) failures.append(f);
  j["failures"] = failures;
  return j;
}

void print_table(const std::vector<BurstResult>& bursts) {
  std::printf(
      "| burst | events | accepted | rejected | undelivered | events/s | latency p50/p99/max ms "
      "| model ms | polls | solves | solve p50/max ms | poll max ms | actions | RSS MiB |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int round = 0;
  for (const BurstResult& b : bursts) {
    if (b.kind == "free") ++round;
    std::printf(
        "| %d %s | %zu | %zu | %zu | %zu | %.0f | %.1f / %.1f / %.1f | %.0f | %zu | %zu | %.1f / "
        "%.1f | %.0f | %llu | %.1f |\n",
        round, b.kind.c_str(), b.sent.sent, b.sent.accepted, b.sent.rejected, b.sent.undelivered,
        b.sent.seconds > 0 ? static_cast<double>(b.sent.sent) / b.sent.seconds : 0.0,
        percentile(b.sent.latency_ms, 0.5), percentile(b.sent.latency_ms, 0.99),
        percentile(b.sent.latency_ms, 1.0), b.model_ms, b.polls, b.solve_ms.size(),
        percentile(b.solve_ms, 0.5), percentile(b.solve_ms, 1.0), b.max_poll_ms,
        static_cast<unsigned long long>(b.calls_after.actions() - b.calls_before.actions()),
        b.memory.rss_mib);
  }
}

core::LogLevel parse_log_level(const std::string& level) {
  if (level == "debug") return core::LogLevel::debug;
  if (level == "warning") return core::LogLevel::warning;
  return core::LogLevel::info;
}

int run(const Options& options) {
  if (const auto why = bench::PrivateMunged::unavailable()) {
    std::cout << "bench_daemon_load: skipped: " << *why << '\n';
    return kSkipped;
  }
  std::string dir_template = "/tmp/gaptrain-load.XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) {
    std::cerr << "bench_daemon_load: cannot create a temporary directory\n";
    return 1;
  }
  const std::string dir = dir_template;
  // Blocked before any thread starts: the daemon's loop reads them from a signalfd.
  sigset_t signals;
  sigemptyset(&signals);
  for (const int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  int status = 0;
  {
    bench::PrivateMunged munged(dir);
    bench::SimulatedSlurm slurm(options.cluster);
    const Memory before_daemon = memory_now();

    core::DaemonConfig config;
    config.listen = {"127.0.0.1", free_loopback_port()};
    config.munge_socket = munged.socket();
    config.state_file = dir + "/state.json";
    config.log_level = parse_log_level(options.log_level);
    plugin::PluginConfig plugin;
    plugin.controller = wire::Endpoint{config.listen.host, config.listen.port};
    plugin.munge_socket = munged.socket();
    plugin.timeout = std::chrono::milliseconds(options.timeout_ms);

    // The daemon logs one line per event on stderr: into a file, not the report.
    const std::string log_path =
        options.daemon_log.empty() ? dir + "/gaptraind.log" : options.daemon_log;
    std::fflush(stderr);
    const int saved_stderr = ::dup(2);
    std::FILE* log = std::fopen(log_path.c_str(), "w");
    if (log != nullptr) ::dup2(::fileno(log), 2);

    // Forked while this process has no other thread (the daemon's starts below).
    bench::SenderProcess senders(options.senders, plugin);
    PollLog polls;
    std::promise<void> listening;
    int loop_status = 0;
    std::thread loop([&] {
      try {
        daemon::Daemon gaptraind("(bench)", config, slurm, slurm);
        gaptraind.set_poll_observer([&](const daemon::PollReport& report) {
          polls.add({Clock::now(), slurm.version_polled(), report.poll_ms, report.solve_ms});
        });
        listening.set_value();
        loop_status = gaptraind.run();
      } catch (...) {
        listening.set_exception(std::current_exception());
      }
    });
    std::vector<BurstResult> bursts;
    std::vector<std::string> failures;
    try {
      listening.get_future().get();
      if (!polls.wait_for_version(0)) failures.push_back("no first poll");
      LoadRun load(options, slurm, polls, plugin, senders);
      for (std::string& f : load.register_elastic_jobs()) failures.push_back(std::move(f));
      std::this_thread::sleep_for(std::chrono::duration<double>(options.settle_s));
      const Memory warm = memory_now();
      std::printf("cluster: %d nodes, %d elastic jobs; %d senders, timeout %d ms\n",
                  options.cluster.nodes, options.cluster.elastic_jobs, options.senders,
                  options.timeout_ms);
      std::printf("RSS: %.1f MiB before the daemon started, %.1f MiB after warm-up\n",
                  before_daemon.rss_mib, warm.rss_mib);
      for (int b = 0; b < options.bursts; ++b) {
        bursts.push_back(load.burst(true));
        bursts.push_back(load.burst(false));
      }
    } catch (const std::exception& e) {
      failures.push_back(std::string("error: ") + e.what());
    }
    ::kill(::getpid(), SIGTERM);  // the daemon drains and its loop ends
    loop.join();
    std::fflush(stderr);
    ::dup2(saved_stderr, 2);
    ::close(saved_stderr);
    if (log != nullptr) std::fclose(log);

    print_table(bursts);
    const std::vector<PollRecord> all = polls.all();
    std::vector<double> solves;
    std::vector<double> poll_times;
    for (const PollRecord& p : all) {
      poll_times.push_back(p.poll_ms);
      if (p.solve_ms) solves.push_back(*p.solve_ms);
    }
    std::size_t events = 0;
    // Replies slower than the plugin's timeout: the plugin gave up on them (fails open).
    std::size_t slow_replies = 0;
    for (const BurstResult& b : bursts) {
      events += b.sent.sent;
      slow_replies += static_cast<std::size_t>(
          std::count_if(b.sent.latency_ms.begin(), b.sent.latency_ms.end(),
                        [&](double ms) { return ms > options.timeout_ms; }));
    }
    const Memory end = memory_now();
    const bench::SlurmCalls calls = slurm.calls();
    std::printf(
        "overall: %zu events (%zu replies over %d ms), %zu polls (p50/p99/max %.1f / %.1f / %.1f "
        "ms), %zu solves (p50 %.0f ms, max %.0f ms), %llu actions (%llu grows, %llu nodes grown, "
        "%llu refused); RSS %.1f MiB, peak %.1f MiB; daemon exit %d\n",
        events, slow_replies, options.timeout_ms, all.size(), percentile(poll_times, 0.5),
        percentile(poll_times, 0.99), percentile(poll_times, 1.0), solves.size(),
        percentile(solves, 0.5), percentile(solves, 1.0),
        static_cast<unsigned long long>(calls.actions()),
        static_cast<unsigned long long>(calls.grows),
        static_cast<unsigned long long>(calls.grown_nodes),
        static_cast<unsigned long long>(calls.refused), end.rss_mib, end.peak_mib, loop_status);

    if (!options.json.empty()) {
      Json::Value report(Json::objectValue);
      report["nodes"] = options.cluster.nodes;
      report["elastic_jobs"] = options.cluster.elastic_jobs;
      report["senders"] = options.senders;
      report["timeout_ms"] = options.timeout_ms;
      report["rss_before_daemon_mib"] = before_daemon.rss_mib;
      report["peak_rss_mib"] = end.peak_mib;
      report["polls"] = Json::UInt64{all.size()};
      report["solves"] = Json::UInt64{solves.size()};
      report["poll_ms"] = spread(poll_times);
      report["solve_ms"] = spread(solves);
      report["replies_over_timeout"] = Json::UInt64{slow_replies};
      for (const BurstResult& b : bursts) report["bursts"].append(to_json(b));
      std::ofstream(options.json) << report << '\n';
    }
    for (const BurstResult& b : bursts) {
      for (const std::string& f : b.failures) failures.push_back(b.kind + " burst: " + f);
    }
    for (const std::string& f : failures) std::printf("FAILED: %s\n", f.c_str());
    if (loop_status != 0) failures.push_back("daemon exit status");
    if (options.check && !failures.empty()) status = 1;
    if (!failures.empty() && failures.front().starts_with("error:")) status = 1;
  }
  if (options.daemon_log.empty()) std::filesystem::remove_all(dir);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"gaptraind under the plugin events of a simulated cluster", "bench_daemon_load"};
  app.add_option("--nodes", options.cluster.nodes, "Simulated nodes")
      ->check(CLI::Range(10, 1000000));
  app.add_option("--elastic-jobs", options.cluster.elastic_jobs, "Elastic jobs registered")
      ->check(CLI::Range(0, 10000));
  app.add_option("--elastic-max-nodes", options.cluster.elastic_max_nodes,
                 "Each elastic job's maximum nodes")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--seed", options.cluster.seed, "Random seed");
  app.add_option("--bursts", options.bursts, "Rounds of one free and one take burst")
      ->check(CLI::Range(1, 1000));
  app.add_option("--burst-nodes", options.burst_nodes, "Nodes freed per free burst")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--take-nodes", options.take_nodes, "Idle nodes taken per take burst")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--senders", options.senders, "Concurrent sender threads")
      ->check(CLI::Range(1, 1024));
  app.add_option("--timeout-ms", options.timeout_ms, "Per-event timeout (the plugin's default: 50)")
      ->check(CLI::Range(1, 60000));
  app.add_option("--settle-s", options.settle_s, "Pause after each burst")
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--log-level", options.log_level, "The daemon's log level")
      ->check(CLI::IsMember({"debug", "info", "warning"}));
  app.add_option("--daemon-log", options.daemon_log,
                 "Keep the daemon's log (and the temporary directory) here");
  app.add_option("--json", options.json, "Write the measurements as JSON");
  app.add_flag("--check", options.check,
               "Exit 1 unless every event was accepted, polls were batched and holes match");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "bench_daemon_load: " << e.what() << '\n';
    return 1;
  }
}
