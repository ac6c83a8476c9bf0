// The simulator's picture: the cluster's capacity over time as stacked areas, the regular
// workload at the bottom, the elastic jobs above it and the idle hole nodes on top, with a
// marker where the regular workload took nodes back from elastic jobs; on request the elastic
// area is split into each job's nodes (one <path> per job, with a tooltip). A self-contained
// SVG a browser shows. Fed StepRecords in time order; memory is bounded by the number of
// columns, the jobs active in each and one small entry per job (its span, for the tooltip), not
// by the records.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simulator/simulator.hpp"

namespace gaptrain::sim {

// What the elastic area shows: their total (the default), or each job's nodes.
enum class TimelineDetail { capacity, jobs };

class TimelinePlot {
 public:
  // The window [start_s, end_s] is cut into `columns` equal time columns; each shows the
  // time-weighted mean over its span. `max_nodes` is the cluster's size: the regular workload
  // holds what the hole leaves of it, and it scales the y axis (which grows when a column holds
  // more). Throws std::invalid_argument unless start_s < end_s (both finite),
  // max_nodes >= 1 and columns >= 1.
  TimelinePlot(double start_s, double end_s, int max_nodes, int columns = 1200);
  ~TimelinePlot();
  TimelinePlot(TimelinePlot&&) noexcept;
  TimelinePlot& operator=(TimelinePlot&&) noexcept;

  // A record holds from its time until the next record's (or end_s), clipped to the window.
  // Records must come in non-decreasing time order (std::invalid_argument otherwise, and for
  // a non-finite time or a negative job index). The bands stack the record's `allocation`;
  // idle = hole_nodes minus what the allocation holds (`allocated_nodes` is not read). A
  // record's `reclaimed_nodes` mark the column of its time (inside the window only).
  void add(const StepRecord& record);

  // `jobs` is the job list the records' indices refer to (for names, models and colours);
  // an index past its end is drawn as "job #INDEX". `detail` says whether the elastic area is
  // one band or one per job.
  std::string render_svg(const std::vector<JobRow>& jobs, const std::string& title,
                         TimelineDetail detail = TimelineDetail::capacity) const;

  // For tests and inspection: the time-weighted mean nodes `job` holds in `column`, and the
  // mean hole nodes there, over the part of the column the records cover (0 where none does),
  // the last record counted as holding until end_s. Throws std::out_of_range for a column
  // outside [0, columns).
  double mean_nodes(int column, int job) const;
  double mean_hole_nodes(int column) const;
  // The nodes taken back from elastic jobs at the records' times within `column`.
  long long reclaimed_nodes(int column) const;

 private:
  struct Impl;  // defined in timeline_plot.cpp
  std::unique_ptr<Impl> impl_;
};

}  // namespace gaptrain::sim
