// Rendering a TimelinePlot as SVG (timeline_plot.hpp): the stacked areas, each job's band, the
// reclaim marks, the axes and the legend.
#include <string>
#include <vector>

#include "simulator/timeline_plot.hpp"
#include "simulator/timeline_plot_parts.hpp"

namespace gaptrain::sim {

// --- Rendering ---------------------------------------------------------------------------------

namespace {

// Maps nodes and columns to px.
struct Frame {
  double y_top_nodes = 1.0;  // the nodes at the top of the plot area
  int columns = 1;

  double y(double nodes) const { return kPlotTop + kPlotHeight * (1.0 - nodes / y_top_nodes); }
  double x(int column) const { return kPlotLeft + kPlotWidth * column / columns; }
};

std::string text_element(double x, double y, std::string_view attributes, std::string_view text) {
  return svg::text(x, y, text, attributes);
}

std::string line_element(double x1, double y1, double x2, double y2, std::string_view stroke) {
  return svg::line(x1, y1, x2, y2, "stroke=\"" + std::string(stroke) + "\"");
}

std::string swatch(double x, double y, std::string_view fill) {
  return svg::rect(x, y, 14, 14,
                   "fill=\"" + std::string(fill) + "\" stroke=\"#999\" stroke-width=\"0.5\"");
}

std::string y_axis(const Frame& frame) {
  std::string out;
  const double step = std::max(1.0, tick_step(frame.y_top_nodes, 10, {}));
  for (int i = 0; i * step <= frame.y_top_nodes + 1e-9; ++i) {
    const double nodes = i * step;
    const double y = frame.y(nodes);
    out += line_element(kPlotLeft, y, kPlotLeft + kPlotWidth, y, "#eeeeee");
    out += line_element(kPlotLeft - 5, y, kPlotLeft, y, "#333");
    out += text_element(kPlotLeft - 8, y + 4, "text-anchor=\"end\"", number(nodes, 0));
  }
  const double mid = kPlotTop + kPlotHeight / 2;
  out += text_element(18, mid,
                      "text-anchor=\"middle\" transform=\"rotate(-90 18 " + number(mid, 1) + ")\"",
                      "nodes");
  return out;
}

std::string x_axis(double span_s, const TimeUnit& unit) {
  std::string out;
  const double span = span_s / unit.seconds;
  const double step = tick_step(span, 13, unit.steps);
  for (int i = 0; i * step <= span * (1 + 1e-9); ++i) {
    const double t = i * step;
    const double x = kPlotLeft + kPlotWidth * t / span;
    const double bottom = kPlotTop + kPlotHeight;
    out += line_element(x, bottom, x, bottom + 5, "#333");
    out += text_element(x, bottom + 19, "text-anchor=\"middle\"",
                        format_time(t * unit.seconds, unit, 3));
  }
  out += text_element(kPlotLeft + kPlotWidth / 2, kPageHeight - 10, "text-anchor=\"middle\"",
                      "time since window start");
  return out;
}

// The reclaim marker's shape: a small triangle pointing down at the plot's top edge.
std::string marker_path(double x_center) {
  return "M" + number(x_center - 4.0, 1) + " " + number(kPlotTop - 9.0, 1) + "h8l-4 8Z";
}

// The legend right of the plot: the job models (per job) or the elastic total, then the
// regular workload, the idle nodes and the reclaim marker.
std::string legend(const std::vector<std::string>& models, const Palette& palette,
                   bool unknown_jobs, TimelineDetail detail) {
  const double x = kPlotLeft + kPlotWidth + 20;
  double y = kPlotTop;
  std::string out;
  const auto entry = [&](std::string_view fill, std::string_view label) {
    out += swatch(x, y, fill);
    out += text_element(x + 20, y + 11, "", label);
    y += kLegendRow;
  };
  if (detail == TimelineDetail::jobs) {
    out += text_element(x, y + 11, "font-weight=\"bold\"", "elastic jobs by model");
    y += kLegendRow + 4;
    // Room for the fixed entries below the models; a longer model list is cut with a count.
    const auto room = static_cast<std::size_t>((kPlotHeight - 6 * kLegendRow) / kLegendRow);
    for (std::size_t i = 0; i < models.size(); ++i) {
      if (i + 1 == room && models.size() > room) {
        out += text_element(x + 20, y + 11, "", "… " + std::to_string(models.size() - i) + " more");
        y += kLegendRow;
        break;
      }
      entry(palette.model_colour(models[i]), shortened(models[i], 30));
    }
    if (unknown_jobs) entry(kUnknownJobColour, "job not in the job list");
    y += kLegendRow / 2;
    entry(kIdleColour, kIdleLabel);
  } else {  // top to bottom, as the areas stack
    entry(kIdleColour, kIdleLabel);
    entry(kElasticColour, kElasticLabel);
  }
  entry(kRegularColour, kRegularLabel);
  out += "<path d=\"M" + number(x + 3, 1) + " " + number(y + 3, 1) + "h8l-4 8Z\" fill=\"" +
         std::string(kReclaimColour) + "\"></path>\n";
  out += text_element(x + 20, y + 11, "", "nodes taken back (reclaim)");
  return out;
}

std::string band_element(std::string_view d, std::string_view fill, std::string_view tooltip) {
  return "<path d=\"" + std::string(d) + "\" fill=\"" + std::string(fill) + "\"><title>" +
         xml_escape(tooltip) + "</title></path>\n";
}

std::string utilization_line(double hole_node_s, double allocated_node_s,
                             long long reclaimed_nodes) {
  if (hole_node_s <= 0.0) return "no hole node-time in this window";
  return "elastic jobs held " + number(100.0 * allocated_node_s / hole_node_s, 1) +
         "% of the idle (hole) node-time; " + std::to_string(reclaimed_nodes) +
         (reclaimed_nodes == 1 ? " node" : " nodes") + " taken back from them";
}

// The bands as paths, stacked from the bottom: the regular workload, the elastic jobs (their
// total, or one band per job stacked by job index, so a job keeps its place among the others
// from column to column) and the idle hole nodes on top.
struct Bands {
  BandPath regular;
  BandPath elastic;
  std::map<int, BandPath> jobs;
  BandPath idle;
};

Bands build_bands(int max_nodes, const Scan& scan, const Frame& frame,
                  const std::vector<long>& x_tenths, TimelineDetail detail) {
  Bands bands{BandPath(x_tenths), BandPath(x_tenths), {}, BandPath(x_tenths)};
  for (int c = 0; c < frame.columns; ++c) {
    const ColumnMeans& column = scan.columns[static_cast<std::size_t>(c)];
    if (column.covered_s <= 0.0) continue;
    const double regular = regular_nodes(max_nodes, column);
    if (regular > 0.0) bands.regular.add(c, to_tenths(frame.y(regular)), to_tenths(frame.y(0.0)));
    double base = regular;
    for (const JobNodeSeconds& job : column.jobs) {
      const double top = base + job.node_s;
      if (detail == TimelineDetail::jobs) {
        bands.jobs.try_emplace(job.job, x_tenths)
            .first->second.add(c, to_tenths(frame.y(top)), to_tenths(frame.y(base)));
      }
      base = top;
    }
    if (detail == TimelineDetail::capacity && base > regular) {
      bands.elastic.add(c, to_tenths(frame.y(base)), to_tenths(frame.y(regular)));
    }
    if (regular + column.hole > base) {
      bands.idle.add(c, to_tenths(frame.y(regular + column.hole)), to_tenths(frame.y(base)));
    }
  }
  return bands;
}

// One red triangle above each column where nodes were taken back, with how many and when.
std::string reclaim_markers(const Scan& scan, const Frame& frame, double span_s,
                            const TimeUnit& unit) {
  std::string out;
  const int decimals = unit.seconds >= 3600.0 ? 2 : 1;
  for (int c = 0; c < frame.columns; ++c) {
    const long long nodes = scan.columns[static_cast<std::size_t>(c)].reclaimed_nodes;
    if (nodes <= 0) continue;
    const std::string when = format_time(span_s * c / frame.columns, unit, decimals) + " to " +
                             format_time(span_s * (c + 1) / frame.columns, unit, decimals);
    out += band_element(marker_path((frame.x(c) + frame.x(c + 1)) / 2.0), kReclaimColour,
                        std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") +
                            " taken back from elastic jobs, " + when);
  }
  return out;
}

// "job ID (MODEL): mean N nodes, from T1 to T2", the mean over the span it held nodes in.
std::string job_tooltip(const std::string& id, const std::string& model, const JobSpan& span,
                        double start_s, const TimeUnit& unit) {
  const double mean = span.node_s / std::max(span.last_s - span.first_s, 1e-12);
  // Finer than the axis labels: a tooltip names a moment, the axis only spaces ticks.
  const int decimals = unit.seconds >= 3600.0 ? 2 : 1;
  return "job " + id + " (" + model + "): mean " + number(mean, 1) + " nodes, from " +
         format_time(span.first_s - start_s, unit, decimals) + " to " +
         format_time(span.last_s - start_s, unit, decimals);
}

// The job bands' <path> elements; notes the models drawn (for the legend) and whether a job
// index fell outside the job list.
std::string job_paths(Bands& bands, const std::vector<JobRow>& jobs, const Palette& palette,
                      const std::map<int, JobSpan>& spans, double start_s, const TimeUnit& unit,
                      std::set<std::string>& drawn_models, bool& unknown_jobs) {
  std::string out;
  for (auto& [job, band] : bands.jobs) {
    const bool known = job < static_cast<int>(jobs.size());
    // The tooltip then reads "job #5".
    const std::string id =
        known ? jobs[static_cast<std::size_t>(job)].id : "#" + std::to_string(job);
    const std::string model = known ? jobs[static_cast<std::size_t>(job)].model : "unknown model";
    if (known) drawn_models.insert(model);
    unknown_jobs = unknown_jobs || !known;
    out += band_element(band.finish(),
                        known ? palette.job_colour(model, job) : std::string(kUnknownJobColour),
                        job_tooltip(id, model, spans.at(job), start_s, unit));
  }
  return out;
}

std::string plot_border() {
  return svg::rect(kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight, "fill=\"none\" stroke=\"#333\"");
}

}  // namespace

std::string TimelinePlot::render_svg(const std::vector<JobRow>& jobs, const std::string& title,
                                     TimelineDetail detail) const {
  const Impl& impl = *impl_;
  const int column_count = impl.column_count();
  Scan scan = impl.scan();
  const Frame frame{std::ceil(scan.peak_nodes), column_count};
  std::vector<long> x_tenths;
  for (int c = 0; c <= column_count; ++c) x_tenths.push_back(to_tenths(frame.x(c)));
  Bands bands = build_bands(impl.max_nodes, scan, frame, x_tenths, detail);
  const double span_s = impl.end_s - impl.start_s;
  const TimeUnit unit = time_unit(span_s);
  const std::string markers = reclaim_markers(scan, frame, span_s, unit);
  scan.columns.clear();  // the paths hold what is drawn now

  const Palette palette(jobs);
  std::set<std::string> drawn_models;
  bool unknown_jobs = false;
  std::string page = svg::open(kPageWidth, kPageHeight, title);
  page += text_element(kPlotLeft, 24, "font-size=\"16\" font-weight=\"bold\"", title);
  page +=
      text_element(kPlotLeft, 44, "fill=\"#555\"",
                   utilization_line(scan.hole_node_s, scan.allocated_node_s, scan.reclaimed_nodes));
  page += y_axis(frame);
  if (!bands.regular.empty()) {
    page += band_element(bands.regular.finish(), kRegularColour, kRegularLabel);
  }
  if (!bands.elastic.empty()) {
    page += band_element(bands.elastic.finish(), kElasticColour, kElasticLabel);
  }
  page += job_paths(bands, jobs, palette, impl.final_spans(), impl.start_s, unit, drawn_models,
                    unknown_jobs);
  if (!bands.idle.empty()) page += band_element(bands.idle.finish(), kIdleColour, kIdleLabel);
  page += plot_border();
  page += markers;
  page += x_axis(span_s, unit);
  page += legend({drawn_models.begin(), drawn_models.end()}, palette, unknown_jobs, detail);
  page += svg::kClose;
  return page;
}

}  // namespace gaptrain::sim
