#include "simulator/upper_bound.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

#include "gaptrain/input_error.hpp"
#include "simulator/certified_lp.hpp"
#include "simulator/curve_hull.hpp"

namespace gaptrain::sim {

namespace {

// The replay marks a job done when its remaining work would take under kDoneTolerance_s,
// crediting a little less than its work: the first-come-first-served rows allow twice that much
// per completed job.
constexpr double kDoneShortfallS = 2.0 * kDoneTolerance_s;
// The certificate's sums, and the replay's, are rounded: the bound is raised by this much
// (relative), far below anything measured and above any rounding of sums of ~1e6 terms.
constexpr double kRoundingMargin = 1e-9;
// The fewest buckets the per-job relaxation is tried with; coarser is looser than per-model.
constexpr int kMinJobBuckets = 8;

// The window cut into buckets, with the hole node-seconds of each: the first `nodes` nodes of
// the trace, as the replay sees them.
struct Buckets {
  std::vector<double> bounds_s;  // count() + 1 increasing times, the window's start and end
  std::vector<double> hole_node_s;
  int count() const { return static_cast<int>(hole_node_s.size()); }
  double start_of(int b) const { return bounds_s[static_cast<std::size_t>(b)]; }
  double end_of(int b) const { return bounds_s[static_cast<std::size_t>(b) + 1]; }
  double length_of(int b) const { return end_of(b) - start_of(b); }
  // The bucket holding time t (the first for t before the window).
  int at(double t) const {
    const auto it = std::upper_bound(bounds_s.begin(), bounds_s.end(), t);
    return std::clamp(static_cast<int>(it - bounds_s.begin()) - 1, 0, count() - 1);
  }
};

// The number of hole nodes as a step function of time over [start_s, end_s].
struct HoleCount {
  std::vector<double> time_s;  // segment starts, the first at start_s
  std::vector<int> holes;      // during each segment
  double end_s = 0.0;
};

HoleCount hole_count(const HoleTrace& trace, int nodes, double start_s, double end_s) {
  std::vector<char> hole(static_cast<std::size_t>(nodes), 0);
  int count = 0;
  const auto apply = [&](const TraceStep& step) {
    for (const NodeUpdate& u : step.updates) {
      if (u.node >= nodes) continue;
      char& h = hole[static_cast<std::size_t>(u.node)];
      if (u.idle != (h != 0)) count += u.idle ? 1 : -1;
      h = u.idle ? 1 : 0;
    }
  };
  HoleCount result;
  result.end_s = end_s;
  std::size_t next = 0;
  for (; next < trace.steps.size() && trace.steps[next].time_s <= start_s; ++next)
    apply(trace.steps[next]);
  result.time_s.push_back(start_s);
  result.holes.push_back(count);
  for (; next < trace.steps.size() && trace.steps[next].time_s < end_s; ++next) {
    apply(trace.steps[next]);
    result.time_s.push_back(trace.steps[next].time_s);
    result.holes.push_back(count);
  }
  return result;
}

// Buckets whose bounds are the times `marks` (trace steps, submissions) when there are at most
// `count` of them, so the hole count is constant within each; else `count` equal buckets.
Buckets cut(const HoleCount& holes, const std::vector<double>& marks, int count) {
  Buckets buckets;
  const double start = holes.time_s.front();
  if (static_cast<int>(marks.size()) + 1 <= count) {
    buckets.bounds_s.push_back(start);
    for (const double t : marks)
      if (t > buckets.bounds_s.back() && t < holes.end_s) buckets.bounds_s.push_back(t);
  } else {
    for (int b = 0; b < count; ++b)
      buckets.bounds_s.push_back(start + (holes.end_s - start) * b / count);
  }
  buckets.bounds_s.push_back(holes.end_s);
  buckets.hole_node_s.assign(buckets.bounds_s.size() - 1, 0.0);
  for (std::size_t k = 0; k < holes.time_s.size(); ++k) {
    const double from = holes.time_s[k];
    const double to = k + 1 < holes.time_s.size() ? holes.time_s[k + 1] : holes.end_s;
    if (holes.holes[k] == 0 || to <= from) continue;
    for (int b = buckets.at(from); b < buckets.count() && buckets.start_of(b) < to; ++b) {
      const double overlap = std::min(to, buckets.end_of(b)) - std::max(from, buckets.start_of(b));
      if (overlap > 0.0)
        buckets.hole_node_s[static_cast<std::size_t>(b)] += holes.holes[k] * overlap;
    }
  }
  return buckets;
}

// A job as the relaxation sees it, in submission order.
struct BoundJob {
  double submit_s = 0.0;  // absolute
  double work = 0.0;
  int cap = 1;            // the most nodes it trains on within holes: max_nodes, or all nodes
  double top_rate = 0.0;  // its curve's highest rate
  std::vector<HullPiece> hull;
  std::string model;
  // First-come-first-served: before it can be in Slurm, this many samples of the jobs before it
  // are done (the smallest works of the i - K + 1 of them that must have completed).
  double entry_samples = 0.0;
};

std::vector<BoundJob> bound_jobs(const std::vector<JobRow>& jobs, const CurveTable& curves,
                                 const SimOptions& options, int nodes, double end_s) {
  std::vector<const JobRow*> order;
  for (const JobRow& spec : jobs) order.push_back(&spec);
  std::stable_sort(order.begin(), order.end(),
                   [](const JobRow* a, const JobRow* b) { return a->submit_s < b->submit_s; });
  double top_rate = 0.0;
  std::vector<BoundJob> result;
  for (const JobRow* spec : order) {
    const double submit = options.start_s + spec->submit_s;
    if (submit >= end_s) break;  // submitted at the window's end or later: trains nothing
    // With node types, its fastest type's at every count: no job trains faster anywhere.
    const ScalingCurve curve = fastest_curve(curves.at(spec->model));
    BoundJob job;
    job.submit_s = submit;
    job.work = std::max(0.0, spec->work_samples);
    job.cap = std::max(1, std::min(nodes, spec->max_nodes));
    job.hull = concave_hull(curve);
    job.top_rate = job.hull.back().intercept;
    job.model = spec->model;
    top_rate = std::max(top_rate, job.top_rate);
    result.push_back(std::move(job));
  }
  // The sum of the k smallest works before job i, k = i - K + 1 growing by one per job: the k
  // smallest in a max-heap, the others in a min-heap.
  const int slots = options.max_running;
  std::priority_queue<double> smallest;
  std::priority_queue<double, std::vector<double>, std::greater<>> others;
  double smallest_sum = 0.0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (i > 0) {
      const double w = result[i - 1].work;
      if (!smallest.empty() && w < smallest.top()) {
        smallest_sum += w - smallest.top();
        others.push(smallest.top());
        smallest.pop();
        smallest.push(w);
      } else {
        others.push(w);
      }
    }
    const long long k = static_cast<long long>(i) - slots + 1;
    while (static_cast<long long>(smallest.size()) < k && !others.empty()) {
      smallest_sum += others.top();
      smallest.push(others.top());
      others.pop();
    }
    if (k > 0)
      result[i].entry_samples =
          std::max(0.0, smallest_sum - static_cast<double>(k) * top_rate * kDoneShortfallS);
  }
  return result;
}

// What both relaxations share: the window, its buckets, the jobs and the extra node-time.
struct Relaxation {
  const std::vector<BoundJob>& jobs;
  const SimOptions& options;
  int nodes = 0;
  double waited_node_s = 0.0;
};

// Per job, the first bucket it can train in: after its submission, and once the most samples
// anything could have trained by the bucket's end reaches its entry_samples. -1: none.
std::vector<int> first_buckets(const Relaxation& r, const Buckets& buckets) {
  double slope = 0.0;  // the most samples per node-second of any job
  double top_rate = 0.0;
  for (const BoundJob& job : r.jobs) {
    slope = std::max(slope, job.hull.front().slope);
    top_rate = std::max(top_rate, job.top_rate);
  }
  std::vector<double> most_done(static_cast<std::size_t>(buckets.count()));
  double capacity = r.waited_node_s;
  for (int b = 0; b < buckets.count(); ++b) {
    capacity += buckets.hole_node_s[static_cast<std::size_t>(b)];
    const double elapsed = buckets.end_of(b) - buckets.start_of(0);
    most_done[static_cast<std::size_t>(b)] =
        std::min(slope * capacity, r.options.max_running * top_rate * elapsed);
  }
  std::vector<int> first(r.jobs.size(), -1);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const BoundJob& job = r.jobs[i];
    int b = buckets.at(job.submit_s);
    while (b < buckets.count() && most_done[static_cast<std::size_t>(b)] < job.entry_samples) ++b;
    if (b < buckets.count()) first[i] = b;
    // Job i enters Slurm after job i-1 (one queue): never sooner, nor at all if i-1 cannot.
    if (i > 0 && (first[i - 1] < 0 || first[i] < 0)) first[i] = -1;
    if (i > 0 && first[i] >= 0) first[i] = std::max(first[i], first[i - 1]);
  }
  return first;
}

// Seconds of bucket b after the job's submission.
double open_seconds(const Buckets& buckets, int b, double submit_s) {
  return std::max(0.0, buckets.end_of(b) - std::max(buckets.start_of(b), submit_s));
}

// The columns and rows every bucket has: the node-time taken back from the trace (placed
// anywhere, up to the non-hole node-time of the bucket), the capacity and the slot rows.
struct BucketRows {
  std::vector<int> waited;  // column per bucket; -1 when there is no such node-time
  std::vector<double> waited_upper;
  std::vector<int> capacity;  // Σ_j u_jb - w_b <= hole node-seconds
  std::vector<int> slots;     // Σ_j a_jb <= K * length
  std::vector<int> beyond;    // Σ_j x_jb - w_b <= 0 (x_jb: node-seconds beyond j's cap); or -1
};

BucketRows bucket_rows(CertifiedLp& lp, const Relaxation& r, const Buckets& buckets) {
  BucketRows rows;
  const int total = r.waited_node_s > 0.0 ? lp.add_row(r.waited_node_s) : -1;
  for (int b = 0; b < buckets.count(); ++b) {
    const double holes = buckets.hole_node_s[static_cast<std::size_t>(b)];
    int w = -1;
    if (total >= 0) {
      w = lp.add_column(
          0.0, std::max(0.0, std::min(r.waited_node_s, r.nodes * buckets.length_of(b) - holes)));
      lp.add_term(total, w, 1.0);
    }
    rows.waited.push_back(w);
    rows.waited_upper.push_back(
        w >= 0 ? std::max(0.0, std::min(r.waited_node_s, r.nodes * buckets.length_of(b) - holes))
               : 0.0);
    rows.capacity.push_back(lp.add_row(holes));
    if (w >= 0) lp.add_term(rows.capacity.back(), w, -1.0);
    rows.slots.push_back(lp.add_row(r.options.max_running * buckets.length_of(b)));
    rows.beyond.push_back(w >= 0 ? lp.add_row(0.0) : -1);
    if (w >= 0) lp.add_term(rows.beyond.back(), w, -1.0);
  }
  return rows;
}

// One (job or model, bucket) cell: active seconds a, node-seconds u, samples s, with
// s <= intercept * a + slope * u for every hull piece and u <= cap * a + x, x the node-seconds
// beyond the cap (held after the trace took them: Σ x <= w_b over the bucket's cells). One x
// per cell rather than w_b in every cap row: a column in thousands of rows makes the interior
// point method's normal matrix dense.
struct Cell {
  int active = 0;
  int node_s = 0;
  int samples = 0;
};

Cell add_cell(CertifiedLp& lp, const BucketRows& rows, int b, double active_upper, int cap,
              const std::vector<HullPiece>& hull, double samples_upper) {
  Cell cell;
  cell.active = lp.add_column(0.0, active_upper);
  cell.node_s =
      lp.add_column(0.0, cap * active_upper + rows.waited_upper[static_cast<std::size_t>(b)]);
  cell.samples = lp.add_column(1.0, samples_upper);
  for (const HullPiece& piece : hull) {
    const int row = lp.add_row(0.0);
    lp.add_term(row, cell.samples, 1.0);
    if (piece.intercept != 0.0) lp.add_term(row, cell.active, -piece.intercept);
    if (piece.slope != 0.0) lp.add_term(row, cell.node_s, -piece.slope);
  }
  const int cap_row = lp.add_row(0.0);
  lp.add_term(cap_row, cell.node_s, 1.0);
  lp.add_term(cap_row, cell.active, -static_cast<double>(cap));
  if (rows.beyond[static_cast<std::size_t>(b)] >= 0) {
    const int beyond = lp.add_column(0.0, rows.waited_upper[static_cast<std::size_t>(b)]);
    lp.add_term(cap_row, beyond, -1.0);
    lp.add_term(rows.beyond[static_cast<std::size_t>(b)], beyond, 1.0);
  }
  lp.add_term(rows.capacity[static_cast<std::size_t>(b)], cell.node_s, 1.0);
  lp.add_term(rows.slots[static_cast<std::size_t>(b)], cell.active, 1.0);
  return cell;
}

long long job_buckets(const std::vector<int>& first, int buckets) {
  long long pairs = 0;
  for (const int f : first)
    if (f >= 0) pairs += buckets - f;
  return pairs;
}

// Per job and bucket, with the first-come-first-served rows: job i is active in bucket b only
// if the jobs before it did entry_samples by the bucket's end, relaxed to
// (a_ib / length) * entry_samples <= done_ib, done_ib the jobs before i's samples through b.
double per_job_bound(const Relaxation& r, const Buckets& buckets, const std::vector<int>& first) {
  CertifiedLp lp;
  const BucketRows rows = bucket_rows(lp, r, buckets);
  const int count = buckets.count();
  double work_before = 0.0;
  std::vector<int> cumulative_before;  // job i-1's samples through b, by b (-1: none)
  std::vector<int> done_before;        // the jobs before i-1's samples through b
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const BoundJob& job = r.jobs[i];
    const int f = first[i];
    if (f < 0) break;  // nor can any later job start: first buckets never decrease
    std::vector<int> cumulative(static_cast<std::size_t>(count), -1);
    std::vector<int> done(static_cast<std::size_t>(count), -1);
    const int work_row = lp.add_row(job.work);
    for (int b = f; b < count; ++b) {
      const auto bi = static_cast<std::size_t>(b);
      const Cell cell = add_cell(lp, rows, b, open_seconds(buckets, b, job.submit_s), job.cap,
                                 job.hull, std::min(job.work, job.top_rate * buckets.length_of(b)));
      lp.add_term(work_row, cell.samples, 1.0);
      // cumulative_ib <= cumulative_i,b-1 + s_ib
      cumulative[bi] = lp.add_column(0.0, job.work);
      const int cumulative_row = lp.add_row(0.0);
      lp.add_term(cumulative_row, cumulative[bi], 1.0);
      lp.add_term(cumulative_row, cell.samples, -1.0);
      if (b > f) lp.add_term(cumulative_row, cumulative[bi - 1], -1.0);
      if (i == 0) continue;
      // done_ib <= done_i-1,b + cumulative_i-1,b: the jobs before i's samples through b.
      done[bi] = lp.add_column(0.0, work_before);
      const int done_row = lp.add_row(0.0);
      lp.add_term(done_row, done[bi], 1.0);
      lp.add_term(done_row, cumulative_before[bi], -1.0);
      if (done_before.size() > bi && done_before[bi] >= 0)
        lp.add_term(done_row, done_before[bi], -1.0);
      if (job.entry_samples > 0.0) {
        const int fcfs_row = lp.add_row(0.0);
        lp.add_term(fcfs_row, cell.active, job.entry_samples / buckets.length_of(b));
        lp.add_term(fcfs_row, done[bi], -1.0);
      }
    }
    work_before += job.work;
    cumulative_before = std::move(cumulative);
    done_before = std::move(done);
  }
  return lp.maximize().bound;
}

// A line y = intercept + slope * e.
struct Line {
  double intercept = 0.0;
  double slope = 0.0;
};

// Lines through consecutive vertices of the upper (or lower) convex hull of the points
// (e, y[e]), e = 0..n-1: each lies above (below) every point, so a point's y is at most (at
// least) any of them at its e. At most `most` of them, evenly picked: any subset still bounds.
std::vector<Line> hull_lines(const std::vector<double>& y, bool upper, std::size_t most) {
  // The lower hull is the upper hull of -y; negation is exact, so its lines are too.
  const double sign = upper ? 1.0 : -1.0;
  std::vector<std::pair<double, double>> points;
  points.reserve(y.size());
  for (std::size_t e = 0; e < y.size(); ++e)
    points.emplace_back(static_cast<double>(e), sign * y[e]);
  const std::vector<std::pair<double, double>> hull = upper_hull(points);
  std::vector<Line> lines;
  for (std::size_t k = 0; k + 1 < hull.size(); ++k) {
    const auto& [x0, y0] = hull[k];
    const auto& [x1, y1] = hull[k + 1];
    const double slope = (y1 - y0) / (x1 - x0);
    lines.push_back({sign * (y0 - slope * x0), sign * slope});
  }
  if (lines.size() <= most) return lines;
  std::vector<Line> picked;
  for (std::size_t k = 0; k < most; ++k)
    picked.push_back(lines[k * (lines.size() - 1) / (most - 1)]);
  return picked;
}

// Jobs of one model and cap pooled.
struct Pool {
  int cap = 1;
  const std::vector<HullPiece>* hull = nullptr;
  double top_rate = 0.0;
  std::vector<double> arrived_work;  // by bucket: of the jobs whose first bucket is <= it
  std::vector<int> arrived_jobs;
  std::vector<double> prefix_work;  // by e = 0..n: of the pool's jobs among the first e
  double largest_work = 0.0;
  // By bucket, columns of its samples through it (-1: none): `above` >= them, `below` <= them.
  // Two one-sided chains, not one equality: opposite rows stall the interior point method.
  std::vector<int> above;
  std::vector<int> below;
};

// Submission order, pooled (docs/simulator.md, "The oracle bound", step 8). With E the jobs
// that entered Slurm by a bucket's end (a prefix of the submission order) and k_p of them
// incomplete in pool p (Σ_p k_p <= K), the pool's samples through then lie between
// W_p(E) - k_p * largest_p and W_p(E), W_p(e) the work of its jobs among the first e; W_p
// relaxed to its convex hull's lines. This makes the pools train in the submission mix.
void add_order_rows(CertifiedLp& lp, const Relaxation& r, const Buckets& buckets,
                    const std::vector<int>& first,
                    std::map<std::pair<std::string, int>, Pool>& pools) {
  constexpr std::size_t kMostLines = 16;
  struct Bounds {
    std::vector<Line> above;
    std::vector<Line> below;
  };
  std::vector<Bounds> bounds;
  for (const auto& [key, pool] : pools)
    bounds.push_back({hull_lines(pool.prefix_work, true, kMostLines),
                      hull_lines(pool.prefix_work, false, kMostLines)});
  int entered_before = -1;
  int can_enter = 0;  // jobs whose first bucket is <= b
  for (int b = 0; b < buckets.count(); ++b) {
    const auto bi = static_cast<std::size_t>(b);
    while (static_cast<std::size_t>(can_enter) < first.size() &&
           first[static_cast<std::size_t>(can_enter)] >= 0 &&
           first[static_cast<std::size_t>(can_enter)] <= b)
      ++can_enter;
    const int entered = lp.add_column(0.0, can_enter);
    if (entered_before >= 0) {
      const int row = lp.add_row(0.0);  // E never decreases
      lp.add_term(row, entered_before, 1.0);
      lp.add_term(row, entered, -1.0);
    }
    entered_before = entered;
    const int slots = lp.add_row(r.options.max_running);
    std::size_t p = 0;
    for (const auto& [key, pool] : pools) {
      const Bounds& lines = bounds[p++];
      for (const Line& line : lines.above) {  // samples through b <= W_p(E)
        const int row = lp.add_row(line.intercept);
        if (pool.above[bi] >= 0) lp.add_term(row, pool.above[bi], 1.0);
        lp.add_term(row, entered, -line.slope);
      }
      const int incomplete = lp.add_column(0.0, r.options.max_running);
      lp.add_term(slots, incomplete, 1.0);
      // W_p(E) - samples through b <= k_p * largest + E * (a complete job's shortfall, <= 2 µs)
      const double shortfall = pool.top_rate * kDoneShortfallS;
      for (const Line& line : lines.below) {
        const int row = lp.add_row(-line.intercept);
        if (pool.below[bi] >= 0) lp.add_term(row, pool.below[bi], -1.0);
        lp.add_term(row, entered, line.slope - shortfall);
        lp.add_term(row, incomplete, -pool.largest_work);
      }
    }
  }
}

// Per model and bucket, with each pool's samples through a bucket at most the work of its jobs
// that can have started by then and the submission mix (add_order_rows). The order within a
// pool is dropped, so it is looser than per job; its size does not grow with the jobs.
double per_model_bound(const Relaxation& r, const Buckets& buckets, const std::vector<int>& first) {
  const int count = buckets.count();
  std::map<std::pair<std::string, int>, Pool> pools;
  std::size_t modelled = 0;
  for (std::size_t i = 0; i < r.jobs.size() && first[i] >= 0; ++i) {
    const BoundJob& job = r.jobs[i];
    Pool& pool = pools[{job.model, job.cap}];
    if (pool.hull == nullptr) {
      pool.cap = job.cap;
      pool.hull = &job.hull;
      pool.top_rate = job.top_rate;
      pool.arrived_work.assign(static_cast<std::size_t>(count), 0.0);
      pool.arrived_jobs.assign(static_cast<std::size_t>(count), 0);
      pool.above.assign(static_cast<std::size_t>(count), -1);
      pool.below.assign(static_cast<std::size_t>(count), -1);
    }
    pool.arrived_work[static_cast<std::size_t>(first[i])] += job.work;
    pool.arrived_jobs[static_cast<std::size_t>(first[i])] += 1;
    pool.largest_work = std::max(pool.largest_work, job.work);
    modelled = i + 1;
  }
  for (auto& [key, pool] : pools) pool.prefix_work.assign(modelled + 1, 0.0);
  for (std::size_t i = 0; i < modelled; ++i)
    for (auto& [key, pool] : pools)
      pool.prefix_work[i + 1] =
          pool.prefix_work[i] +
          (key == std::make_pair(r.jobs[i].model, r.jobs[i].cap) ? r.jobs[i].work : 0.0);
  CertifiedLp lp;
  const BucketRows rows = bucket_rows(lp, r, buckets);
  for (auto& [key, pool] : pools) {
    double work = 0.0;
    int jobs = 0;
    int previous = -1;
    for (int b = 0; b < count; ++b) {
      const auto bi = static_cast<std::size_t>(b);
      work += pool.arrived_work[bi];
      jobs += pool.arrived_jobs[bi];
      if (jobs == 0) continue;
      const double active = buckets.length_of(b) * std::min(jobs, r.options.max_running);
      const Cell cell = add_cell(lp, rows, b, active, pool.cap, *pool.hull,
                                 std::min(work, pool.top_rate * active));
      // above_b >= above_b-1 + s_b, at most the work arrived; below_b <= below_b-1 + s_b.
      for (const double sign : {1.0, -1.0}) {
        std::vector<int>& chain = sign > 0.0 ? pool.above : pool.below;
        const int column = lp.add_column(0.0, work);
        const int row = lp.add_row(0.0);
        lp.add_term(row, cell.samples, sign);
        lp.add_term(row, column, -sign);
        if (previous >= 0) lp.add_term(row, chain[static_cast<std::size_t>(previous)], sign);
        chain[bi] = column;
      }
      previous = b;
    }
  }
  add_order_rows(lp, r, buckets, first, pools);
  return lp.maximize().bound;
}

}  // namespace

UpperBound useful_samples_bound(const HoleTrace& trace, const std::vector<JobRow>& jobs,
                                const CurveTable& curves, const SimOptions& options,
                                const BoundOptions& bound) {
  if (options.max_running < 1) throw InputError("--max-running", "must be >= 1");
  if (!(options.duration_s > 0.0)) throw InputError("--duration", "must be > 0");
  if (!(options.start_s >= 0.0) || options.start_s >= trace.end_s)
    throw InputError("--start", "must lie within the trace");
  if (!(bound.waited_node_seconds >= 0.0)) throw InputError("waited_node_seconds", "must be >= 0");
  check_models_known(jobs, curves, "jobs");

  const int all = static_cast<int>(trace.node_names.size());
  const int nodes = options.node_limit > 0 ? std::min(options.node_limit, all) : all;
  const double end_s = std::min(trace.end_s, options.start_s + options.duration_s);
  const std::vector<BoundJob> modelled = bound_jobs(jobs, curves, options, nodes, end_s);
  const Relaxation relaxation{modelled, options, nodes, bound.waited_node_seconds};
  const HoleCount holes = hole_count(trace, nodes, options.start_s, end_s);
  std::vector<double> marks(holes.time_s.begin() + 1, holes.time_s.end());
  for (const BoundJob& job : modelled) marks.push_back(job.submit_s);
  std::sort(marks.begin(), marks.end());
  marks.erase(std::unique(marks.begin(), marks.end()), marks.end());

  UpperBound result;
  const int finest = std::max(1, bound.max_buckets);
  {
    const Buckets buckets = cut(holes, marks, finest);
    const std::vector<int> first = first_buckets(relaxation, buckets);
    result.samples = per_model_bound(relaxation, buckets, first);
    result.method = "per-model LP";
    result.buckets = buckets.count();
    result.jobs_modelled =
        static_cast<int>(std::count_if(first.begin(), first.end(), [](int f) { return f >= 0; }));
  }
  // The per-job relaxation on the finest cut whose (job, bucket) pairs fit the budget.
  for (int count = finest; count >= std::min(finest, kMinJobBuckets); count /= 2) {
    const Buckets buckets = cut(holes, marks, count);
    const std::vector<int> first = first_buckets(relaxation, buckets);
    if (job_buckets(first, count) > bound.max_job_buckets) continue;
    const double per_job = per_job_bound(relaxation, buckets, first);
    if (per_job < result.samples) {
      result.samples = per_job;
      result.method = "per-job LP";
      result.buckets = buckets.count();
    }
    break;
  }
  result.samples *= 1.0 + kRoundingMargin;
  return result;
}

}  // namespace gaptrain::sim
