// TimelinePlot's parts (timeline_plot.cpp accumulates the columns, timeline_svg.cpp renders
// them): the page layout and colours, the time axis, the palette, the band paths, and the
// plot's state. Internal to the two.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/svg_text.hpp"
#include "simulator/timeline_plot.hpp"

namespace gaptrain::sim {

namespace timeline_parts {

using svg::number;
using svg::tick_step;
using svg::xml_escape;

// Page layout in px: the plot area is wide enough for one px per column at the default 1200
// columns; the legend sits right of it so a long model list never covers data.
constexpr double kPlotLeft = 70.0;
constexpr double kPlotTop = 62.0;
constexpr double kPlotWidth = 1200.0;
constexpr double kPlotHeight = 500.0;
constexpr double kLegendWidth = 240.0;
constexpr double kBottomMargin = 52.0;
constexpr double kPageWidth = kPlotLeft + kPlotWidth + kLegendWidth;
constexpr double kPageHeight = kPlotTop + kPlotHeight + kBottomMargin;
constexpr double kLegendRow = 18.0;

// Capacity: the regular workload in a quiet slate, the elastic jobs in green (what gaptrain
// harvested), the idle hole nodes in pale sand (what nobody used); reclaims in red.
constexpr std::string_view kRegularColour = "#b8c2cc";
constexpr std::string_view kElasticColour = "#59a14f";
constexpr std::string_view kIdleColour = "#f2e6c4";
constexpr std::string_view kReclaimColour = "#d62728";
constexpr std::string_view kUnknownJobColour = "#7f7f7f";
constexpr std::string_view kRegularLabel = "regular workload";
constexpr std::string_view kElasticLabel = "elastic jobs";
constexpr std::string_view kIdleLabel = "idle (hole, unallocated)";

struct Interval {
  double begin = 0.0;
  double end = 0.0;
  double length() const { return end - begin; }
};

inline Interval intersect(Interval a, Interval b) {
  return {std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

// A job's nodes summed over time; the unit both columns and whole-run spans accumulate.
struct JobNodeSeconds {
  int job = 0;
  double node_s = 0.0;
};

// Coordinates are written in tenths of a px: fine enough for any screen, and equal tenths let
// the band paths merge neighbouring columns into one segment.
inline long to_tenths(double px) {
  return std::lround(px * 10.0);
}
inline std::string tenths(long value) {
  return number(static_cast<double>(value) / 10.0, 1);
}

// At most `max_bytes` of `text`, cut at a UTF-8 character boundary, with "…" when cut.
inline std::string shortened(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "…";
}

// --- Time axis ---------------------------------------------------------------------------------

// The unit a window is labelled in, picked by its length so labels stay short numbers.
struct TimeUnit {
  double seconds = 1.0;
  std::string_view name;  // "s", "min", "h", "day"
  // Tick steps a person expects in this unit (6 h, 30 days); empty: plain 1-2-5 steps.
  std::span<const double> steps;
};

constexpr std::array<double, 6> kMinuteSteps{1, 2, 5, 10, 15, 30};
constexpr std::array<double, 4> kHourSteps{1, 3, 6, 12};
constexpr std::array<double, 8> kDaySteps{1, 2, 5, 7, 14, 30, 60, 90};

inline TimeUnit time_unit(double span_s) {
  if (span_s <= 180.0) return {1.0, "s", {}};
  if (span_s <= 3.0 * 3600.0) return {60.0, "min", kMinuteSteps};
  if (span_s <= 3.0 * 86400.0) return {3600.0, "h", kHourSteps};
  return {86400.0, "day", kDaySteps};
}

// "6 h", "15 min", "day 30": time since the window start in `unit`.
inline std::string format_time(double since_start_s, const TimeUnit& unit, int decimals) {
  const std::string value = number(since_start_s / unit.seconds, decimals);
  if (unit.name == "day") return "day " + value;
  return value + " " + std::string(unit.name);
}

// --- Colours -----------------------------------------------------------------------------------

struct Rgb {
  double r = 0.0;
  double g = 0.0;
  double b = 0.0;
};

// Tableau 10 without its grey, which would read as idle.
constexpr std::array<Rgb, 9> kPalette{{{78, 121, 167},
                                       {242, 142, 43},
                                       {225, 87, 89},
                                       {118, 183, 178},
                                       {89, 161, 79},
                                       {237, 201, 72},
                                       {176, 122, 161},
                                       {255, 157, 167},
                                       {156, 117, 95}}};

inline Rgb mix(Rgb from, Rgb to, double weight) {
  return {from.r + (to.r - from.r) * weight, from.g + (to.g - from.g) * weight,
          from.b + (to.b - from.b) * weight};
}

inline std::string hex(Rgb colour) {
  const auto byte = [](double v) {
    return static_cast<unsigned>(std::clamp(std::lround(v), 0L, 255L));
  };
  std::array<char, 8> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "#%02x%02x%02x", byte(colour.r), byte(colour.g),
                byte(colour.b));
  return buffer.data();
}

// One colour per model, keyed by the sorted model names of the whole job list so the same job
// list gets the same colours in every run (plots of two policies compare at a glance).
class Palette {
 public:
  explicit Palette(const std::vector<JobRow>& jobs) {
    std::set<std::string> names;
    for (const JobRow& job : jobs) names.insert(job.model);
    for (const std::string& name : names) {
      const std::size_t index = models_.size();
      Rgb base = kPalette[index % kPalette.size()];
      // Past the palette, the second round is darker so no two models share a colour.
      if ((index / kPalette.size()) % 2 == 1) base = mix(base, {0, 0, 0}, 0.35);
      models_.emplace(name, base);
    }
  }

  std::string model_colour(const std::string& model) const { return hex(models_.at(model)); }

  // The model's colour in one of three shades by job index, so jobs of one model submitted
  // back to back (neighbours in the stack) stay apart.
  std::string job_colour(const std::string& model, int job) const {
    const Rgb base = models_.at(model);
    switch (job % 3) {
      case 1: return hex(mix(base, {255, 255, 255}, 0.3));
      case 2: return hex(mix(base, {0, 0, 0}, 0.2));
      default: return hex(base);
    }
  }

 private:
  std::map<std::string, Rgb> models_;
};

// --- Band paths --------------------------------------------------------------------------------

// One band (a job, or the idle nodes) as a single <path>: every run of consecutive columns is
// a closed polygon, the top edge left to right, then the bottom edge back. Columns whose edge
// sits at the same tenth of a px merge into one segment, which keeps steady allocations small.
class BandPath {
 public:
  // `x_tenths` has the columns' left edges and the plot's right edge.
  explicit BandPath(const std::vector<long>& x_tenths) : x_(&x_tenths) {}

  void add(int column, long top, long bottom) {
    if (!edges_.empty() && column != last_column_ + 1) close_run();
    if (edges_.empty()) first_column_ = column;
    edges_.emplace_back(top, bottom);
    last_column_ = column;
  }

  bool empty() const { return d_.empty() && edges_.empty(); }

  std::string finish() {
    close_run();
    return std::move(d_);
  }

 private:
  long x(int column) const { return (*x_)[static_cast<std::size_t>(column)]; }

  void close_run() {
    if (edges_.empty()) return;
    const int count = static_cast<int>(edges_.size());
    const auto top = [&](int i) { return edges_[static_cast<std::size_t>(i)].first; };
    const auto bottom = [&](int i) { return edges_[static_cast<std::size_t>(i)].second; };
    d_ += "M" + tenths(x(first_column_)) + " " + tenths(top(0));
    long y = top(0);
    for (int i = 0; i < count; ++i) {
      if (top(i) != y) d_ += "V" + tenths(y = top(i));
      if (i + 1 == count || top(i + 1) != y) d_ += "H" + tenths(x(first_column_ + i + 1));
    }
    for (int i = count - 1; i >= 0; --i) {
      if (bottom(i) != y) d_ += "V" + tenths(y = bottom(i));
      if (i == 0 || bottom(i - 1) != y) d_ += "H" + tenths(x(first_column_ + i));
    }
    d_ += "Z";
    edges_.clear();
  }

  const std::vector<long>* x_;
  std::string d_;
  std::vector<std::pair<long, long>> edges_;  // the open run's (top, bottom) per column
  int first_column_ = 0;
  int last_column_ = -1;
};

// --- Accumulation ------------------------------------------------------------------------------

// What the records say about one column, as sums over the time they cover in it.
struct Column {
  double covered_s = 0.0;
  double hole_node_s = 0.0;
  std::vector<JobNodeSeconds> jobs;  // sorted by job; only jobs active in the column
  long long reclaimed_nodes = 0;
};

// A column's time-weighted means, for drawing.
struct ColumnMeans {
  double covered_s = 0.0;
  double hole = 0.0;
  std::vector<JobNodeSeconds> jobs;  // sorted by job; node_s holds the mean nodes here
  long long reclaimed_nodes = 0;
};

// Every column's means, and what the page needs from all of them before drawing any.
struct Scan {
  std::vector<ColumnMeans> columns;
  double peak_nodes = 0.0;  // the tallest column: the regular workload and the hole above it
  double hole_node_s = 0.0;
  double allocated_node_s = 0.0;
  long long reclaimed_nodes = 0;
};

// When a job held nodes within the window, for its tooltip.
struct JobSpan {
  double first_s = 0.0;
  double last_s = 0.0;
  double node_s = 0.0;
};

// The last record: it holds until the next one, which is not known yet.
struct Pending {
  double time_s = 0.0;
  int hole_nodes = 0;
  std::vector<JobNodes> allocation;  // sorted by job, one entry each, nodes > 0
};

// The regular workload's nodes beside a column's mean hole: what the hole leaves of the cluster.
inline double regular_nodes(int max_nodes, const ColumnMeans& column) {
  return std::max(0.0, max_nodes - column.hole);
}

inline void add_node_seconds(std::vector<JobNodeSeconds>& jobs, int job, double node_s) {
  const auto at = std::lower_bound(jobs.begin(), jobs.end(), job,
                                   [](const JobNodeSeconds& e, int j) { return e.job < j; });
  if (at != jobs.end() && at->job == job) {
    at->node_s += node_s;
  } else {
    jobs.insert(at, {job, node_s});
  }
}

inline void extend(std::map<int, JobSpan>& spans, const JobNodes& held_nodes, Interval interval) {
  const auto [it, inserted] =
      spans.try_emplace(held_nodes.job, JobSpan{interval.begin, interval.end, 0.0});
  JobSpan& span = it->second;
  if (!inserted) {
    span.first_s = std::min(span.first_s, interval.begin);
    span.last_s = std::max(span.last_s, interval.end);
  }
  span.node_s += held_nodes.nodes * interval.length();
}

}  // namespace timeline_parts

using namespace timeline_parts;

struct TimelinePlot::Impl {
  double start_s;
  double end_s;
  int max_nodes;
  std::vector<Column> columns;
  std::map<int, JobSpan> spans;
  std::optional<Pending> pending;

  Impl(double start, double end, int max_nodes_, int column_count)
      : start_s(start),
        end_s(end),
        max_nodes(max_nodes_),
        columns(static_cast<std::size_t>(column_count)) {}

  int column_count() const { return static_cast<int>(columns.size()); }

  Interval column_span(int column) const {
    const double width = end_s - start_s;
    const double n = static_cast<double>(columns.size());
    return {start_s + width * column / n, start_s + width * (column + 1) / n};
  }

  // The columns [first, last] an interval inside the window may touch; one extra on each side
  // so rounding at a column boundary never drops a sliver (the caller skips empty overlaps).
  std::pair<int, int> column_range(Interval interval) const {
    const double per_column = (end_s - start_s) / static_cast<double>(columns.size());
    const auto index = [&](double t, double shift) {
      const double raw = std::floor((t - start_s) / per_column) + shift;
      return static_cast<int>(std::clamp(raw, 0.0, static_cast<double>(column_count() - 1)));
    };
    return {index(interval.begin, -1.0), index(interval.end, 1.0)};
  }

  // The column a moment inside the window falls in (the last one for end_s itself).
  int column_of(double t) const {
    const double per_column = (end_s - start_s) / static_cast<double>(columns.size());
    const double raw = std::floor((t - start_s) / per_column);
    return static_cast<int>(std::clamp(raw, 0.0, static_cast<double>(column_count() - 1)));
  }

  Interval held(const Pending& record, double until_s) const {
    return intersect({record.time_s, until_s}, {start_s, end_s});
  }

  void accumulate(const Pending& record, Interval interval) {
    if (interval.length() <= 0.0) return;
    const auto [first, last] = column_range(interval);
    for (int c = first; c <= last; ++c) {
      const double overlap = intersect(interval, column_span(c)).length();
      if (overlap <= 0.0) continue;
      Column& column = columns[static_cast<std::size_t>(c)];
      column.covered_s += overlap;
      column.hole_node_s += overlap * record.hole_nodes;
      for (const JobNodes& held_nodes : record.allocation) {
        add_node_seconds(column.jobs, held_nodes.job, overlap * held_nodes.nodes);
      }
    }
    for (const JobNodes& held_nodes : record.allocation) {
      extend(spans, held_nodes, interval);
    }
  }

  // The column's means with the pending record counted until end_s; nothing is mutated, so
  // rendering twice (or rendering and adding more) gives consistent pictures.
  ColumnMeans means(int c) const {
    const Column& column = columns[static_cast<std::size_t>(c)];
    double covered = column.covered_s;
    double hole_node_s = column.hole_node_s;
    std::vector<JobNodeSeconds> jobs = column.jobs;
    if (pending) {
      const double overlap = intersect(held(*pending, end_s), column_span(c)).length();
      if (overlap > 0.0) {
        covered += overlap;
        hole_node_s += overlap * pending->hole_nodes;
        for (const JobNodes& held_nodes : pending->allocation) {
          add_node_seconds(jobs, held_nodes.job, overlap * held_nodes.nodes);
        }
      }
    }
    ColumnMeans result{covered, 0.0, {}, column.reclaimed_nodes};
    if (covered <= 0.0) return result;
    result.hole = hole_node_s / covered;
    for (JobNodeSeconds& job : jobs) job.node_s /= covered;
    result.jobs = std::move(jobs);
    return result;
  }

  // One pass over the columns: the y scale needs the tallest column before anything is drawn.
  Scan scan() const {
    Scan result;
    result.peak_nodes = max_nodes;
    for (int c = 0; c < column_count(); ++c) {
      ColumnMeans column = means(c);
      double stacked = 0.0;
      for (const JobNodeSeconds& job : column.jobs) stacked += job.node_s;
      const double regular = column.covered_s > 0.0 ? regular_nodes(max_nodes, column) : 0.0;
      result.peak_nodes = std::max({result.peak_nodes, regular + stacked, regular + column.hole});
      result.hole_node_s += column.hole * column.covered_s;
      result.allocated_node_s += stacked * column.covered_s;
      result.reclaimed_nodes += column.reclaimed_nodes;
      result.columns.push_back(std::move(column));
    }
    return result;
  }

  std::map<int, JobSpan> final_spans() const {
    std::map<int, JobSpan> result = spans;
    if (pending) {
      const Interval interval = held(*pending, end_s);
      if (interval.length() > 0.0) {
        for (const JobNodes& held_nodes : pending->allocation) {
          extend(result, held_nodes, interval);
        }
      }
    }
    return result;
  }

  void check_column(int column) const {
    if (column < 0 || column >= column_count()) {
      throw std::out_of_range("TimelinePlot: column " + std::to_string(column) + " outside [0, " +
                              std::to_string(column_count()) + ")");
    }
  }
};

}  // namespace gaptrain::sim
