#include "simulator/timeline_plot.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulator/timeline_plot_parts.hpp"

namespace gaptrain::sim {

namespace {

// The record's allocation as the plot keeps it: one entry per job, nodes > 0, sorted by job.
std::vector<JobNodes> normalized(const std::vector<JobNodes>& allocation) {
  std::vector<JobNodes> result;
  for (const JobNodes& entry : allocation) {
    if (entry.job < 0) {
      throw std::invalid_argument("TimelinePlot: negative job index " + std::to_string(entry.job));
    }
    if (entry.nodes > 0) result.push_back(entry);
  }
  std::sort(result.begin(), result.end(),
            [](const JobNodes& a, const JobNodes& b) { return a.job < b.job; });
  std::vector<JobNodes> merged;
  for (const JobNodes& entry : result) {
    if (!merged.empty() && merged.back().job == entry.job) {
      merged.back().nodes += entry.nodes;
    } else {
      merged.push_back(entry);
    }
  }
  return merged;
}

}  // namespace

TimelinePlot::TimelinePlot(double start_s, double end_s, int max_nodes, int columns) {
  if (!std::isfinite(start_s) || !std::isfinite(end_s) || !(start_s < end_s)) {
    throw std::invalid_argument("TimelinePlot: the window needs finite start_s < end_s");
  }
  if (max_nodes < 1) throw std::invalid_argument("TimelinePlot: max_nodes must be >= 1");
  if (columns < 1) throw std::invalid_argument("TimelinePlot: columns must be >= 1");
  impl_ = std::make_unique<Impl>(start_s, end_s, max_nodes, columns);
}

TimelinePlot::~TimelinePlot() = default;
TimelinePlot::TimelinePlot(TimelinePlot&&) noexcept = default;
TimelinePlot& TimelinePlot::operator=(TimelinePlot&&) noexcept = default;

void TimelinePlot::add(const StepRecord& record) {
  if (!std::isfinite(record.time_s)) {
    throw std::invalid_argument("TimelinePlot: record time is not finite");
  }
  if (impl_->pending && record.time_s < impl_->pending->time_s) {
    throw std::invalid_argument("TimelinePlot: records out of time order (" +
                                number(record.time_s, 3) + " s after " +
                                number(impl_->pending->time_s, 3) + " s)");
  }
  Pending next{record.time_s, record.hole_nodes, normalized(record.allocation)};
  if (impl_->pending) {
    impl_->accumulate(*impl_->pending, impl_->held(*impl_->pending, record.time_s));
  }
  impl_->pending = std::move(next);
  if (record.reclaimed_nodes > 0 && record.time_s >= impl_->start_s &&
      record.time_s <= impl_->end_s) {
    impl_->columns[static_cast<std::size_t>(impl_->column_of(record.time_s))].reclaimed_nodes +=
        record.reclaimed_nodes;
  }
}

double TimelinePlot::mean_nodes(int column, int job) const {
  impl_->check_column(column);
  for (const JobNodeSeconds& entry : impl_->means(column).jobs) {
    if (entry.job == job) return entry.node_s;
  }
  return 0.0;
}

double TimelinePlot::mean_hole_nodes(int column) const {
  impl_->check_column(column);
  return impl_->means(column).hole;
}

long long TimelinePlot::reclaimed_nodes(int column) const {
  impl_->check_column(column);
  return impl_->columns[static_cast<std::size_t>(column)].reclaimed_nodes;
}

}  // namespace gaptrain::sim
