// make_node_events: a synthetic node-event log (docs/design.md "Input formats", `time,node,state`)
// of a busy machine, for simulator benchmarks at sizes no public log has. It draws a regular
// workload, replays it with FCFS + EASY backfill (replay_easy_backfill) and writes one row per node
// state change:
//   make_node_events --nodes 4000 --days 14 --seed 1 > events.csv
//
// The workload: power-of-two job sizes 1..nodes/4 (each power equally likely), run times
// log-uniform in 1 min..24 h, requested time = run x U[1,3] (so no job is killed), Poisson
// arrivals at the rate that offers `--load` of the machine. A warm-up period is replayed
// before the window written, so the log starts on a loaded machine rather than an empty one.
// The same seed gives the same log with the same standard library. Rows grow with the node
// starts, load x node-time / mean run time (3.3 h), less the nodes a waiting job takes the
// instant they are freed: 4000 nodes x 14 days at the default load write ~380k rows (9 MB) in
// well under a second.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gaptrain/cli11.hpp"  // CLI11 with its GCC 12 warning workaround
#include "simulator/easy_backfill.hpp"

namespace {

using gaptrain::sim::HoleTrace;
using gaptrain::sim::NodeUpdate;
using gaptrain::sim::SwfJob;
using gaptrain::sim::SwfLog;
using gaptrain::sim::TraceStep;

constexpr double kDay_s = 86400.0;
constexpr double kMinRun_s = 60.0;
constexpr double kMaxRun_s = kDay_s;

struct Options {
  int nodes = 4000;
  double days = 14.0;
  unsigned long long seed = 1;
  double load = 0.875;  // offered node-time / machine node-time
  double warmup_days = 1.0;
  long long start_epoch = 1700000000;  // the window's first row
  std::string output = "-";
};

// Mean of 2^k for k uniform in 0..max_power.
double mean_size(int max_power) {
  double sum = 0.0;
  for (int k = 0; k <= max_power; ++k) sum += std::ldexp(1.0, k);
  return sum / (max_power + 1);
}

// The largest k with 2^k <= nodes / 4 (0 on tiny machines).
int max_size_power(int nodes) {
  int k = 0;
  while ((2LL << k) <= nodes / 4) ++k;
  return k;
}

// Whole seconds throughout, so that every event time is an integer and prints exactly.
SwfLog synthesize(const Options& options) {
  std::mt19937_64 rng(options.seed);
  const int max_power = max_size_power(options.nodes);
  const double mean_run_s = (kMaxRun_s - kMinRun_s) / std::log(kMaxRun_s / kMinRun_s);
  const double arrivals_per_s = options.load * options.nodes / (mean_size(max_power) * mean_run_s);
  std::exponential_distribution<double> gap_s(arrivals_per_s);
  std::uniform_int_distribution<int> size_power(0, max_power);
  std::uniform_real_distribution<double> log_run(std::log(kMinRun_s), std::log(kMaxRun_s));
  std::uniform_real_distribution<double> overestimate(1.0, 3.0);

  SwfLog log;
  log.max_nodes = options.nodes;
  const double end_s = (options.warmup_days + options.days) * kDay_s;
  // The first job arrives at 0, which the replay takes as time 0.
  for (double t = 0.0; t < end_s; t += gap_s(rng)) {
    SwfJob job;
    job.id = static_cast<long long>(log.jobs.size()) + 1;
    job.submit_s = std::floor(t);
    job.nodes = 1 << size_power(rng);
    job.run_s = std::round(std::exp(log_run(rng)));
    job.requested_s = std::ceil(job.run_s * overestimate(rng));
    log.jobs.push_back(job);
  }
  return log;
}

// Rows go through a large buffer: millions of small writes would dominate the run time.
class CsvWriter {
 public:
  // The caller flushes at the end: a failed write must throw, which a destructor cannot.
  explicit CsvWriter(std::FILE* out) : out_(out) { buffer_.reserve(kFlushAt + 256); }

  void line(long long time, const std::string& node, bool idle) {
    buffer_ += std::to_string(time);
    buffer_ += ',';
    buffer_ += node;
    buffer_ += idle ? ",idle\n" : ",busy\n";
    ++rows_;
    if (buffer_.size() >= kFlushAt) flush();
  }
  void header() { buffer_ += "time,node,state\n"; }
  long long rows() const { return rows_; }

  void flush() {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) {
      throw std::runtime_error("cannot write the output");
    }
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  std::FILE* out_;
  std::string buffer_;
  long long rows_ = 0;
};

// "nid00001".. : 1-based, at least 5 digits, like Cray/HPE node names.
std::vector<std::string> nid_names(int nodes) {
  const std::size_t width = std::max<std::size_t>(5, std::to_string(nodes).size());
  std::vector<std::string> names;
  for (int i = 1; i <= nodes; ++i) {
    const std::string digits = std::to_string(i);
    names.push_back("nid" + std::string(width - digits.size(), '0') + digits);
  }
  return names;
}

struct WindowStats {
  long long rows = 0;
  double busy_fraction = 0.0;
};

// Writes the window [warm-up end, warm-up end + days]: every node's state at its start, then
// each state change (prediction changes are not node events). Times are trace seconds shifted
// so that the window starts at `start_epoch`.
WindowStats write_window(const HoleTrace& trace, const Options& options, std::FILE* out) {
  const double from_s = options.warmup_days * kDay_s;
  const double to_s = from_s + options.days * kDay_s;
  const auto epoch = [&](double t) { return options.start_epoch + std::llround(t - from_s); };
  const std::vector<std::string> names = nid_names(options.nodes);

  std::vector<char> idle(names.size(), 0);  // busy until the first update, as in HoleTrace
  std::size_t step = 0;
  for (; step < trace.steps.size() && trace.steps[step].time_s <= from_s; ++step) {
    for (const NodeUpdate& u : trace.steps[step].updates)
      idle[static_cast<std::size_t>(u.node)] = u.idle;
  }
  CsvWriter csv(out);
  csv.header();
  long long idle_count = 0;
  for (std::size_t node = 0; node < names.size(); ++node) {
    csv.line(epoch(from_s), names[node], idle[node] != 0);
    idle_count += idle[node];
  }
  double idle_node_s = 0.0;
  double last_s = from_s;
  for (; step < trace.steps.size() && trace.steps[step].time_s <= to_s; ++step) {
    const TraceStep& s = trace.steps[step];
    idle_node_s += static_cast<double>(idle_count) * (s.time_s - last_s);
    last_s = s.time_s;
    for (const NodeUpdate& u : s.updates) {
      char& was_idle = idle[static_cast<std::size_t>(u.node)];
      if (was_idle == static_cast<char>(u.idle)) continue;  // only a new prediction
      was_idle = u.idle;
      idle_count += u.idle ? 1 : -1;
      csv.line(epoch(s.time_s), names[static_cast<std::size_t>(u.node)], u.idle);
    }
  }
  idle_node_s += static_cast<double>(idle_count) * (to_s - last_s);
  csv.flush();
  return {csv.rows(), 1.0 - idle_node_s / (options.nodes * (to_s - from_s))};
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{
      "Synthesize a node-event log (time,node,state) of a machine running a regular "
      "workload under FCFS + EASY backfill"};
  app.add_option("--nodes", options.nodes, "machine size")->check(CLI::Range(4, 1000000));
  app.add_option("--days", options.days, "length of the log written")->check(CLI::PositiveNumber);
  app.add_option("--seed", options.seed, "random seed");
  app.add_option("--load", options.load, "offered load, fraction of the machine")
      ->check(CLI::Range(0.01, 1.0));
  app.add_option("--warmup-days", options.warmup_days, "replayed before the log starts")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--start", options.start_epoch, "epoch seconds of the first row");
  app.add_option("-o,--output", options.output, "output file ('-': standard output)");
  CLI11_PARSE(app, argc, argv);

  try {
    const SwfLog log = synthesize(options);
    // Predictions are not node events: plan nothing.
    const HoleTrace trace = gaptrain::sim::replay_easy_backfill(log, {.plan_max_jobs = 0});
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
    if (options.output != "-") {
      file.reset(std::fopen(options.output.c_str(), "wb"));
      if (!file) throw std::runtime_error("cannot open " + options.output + " for writing");
    }
    const WindowStats stats = write_window(trace, options, file ? file.get() : stdout);
    std::fprintf(stderr, "make_node_events: %zu jobs, %lld rows, %.1f%% of node-time busy\n",
                 log.jobs.size(), stats.rows, 100.0 * stats.busy_fraction);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_node_events: %s\n", e.what());
    return 1;
  }
  return 0;
}
