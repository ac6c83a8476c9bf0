// The simulator's SVG timeline: per-column means, the capacity areas (regular, elastic, idle)
// and the per-job bands, reclaim markers, labels and escaping.
#include "simulator/timeline_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gaptrain::sim::timeline_plot_test {
namespace {

StepRecord record(double time_s, int hole_nodes, std::vector<JobNodes> allocation = {},
                  int reclaimed_nodes = 0) {
  StepRecord r;
  r.reclaimed_nodes = reclaimed_nodes;
  r.time_s = time_s;
  r.hole_nodes = hole_nodes;
  for (const JobNodes& j : allocation) r.allocated_nodes += j.nodes;
  r.jobs_running = static_cast<int>(allocation.size());
  r.allocation = std::move(allocation);
  return r;
}

JobRow job(std::string id, std::string model) {
  JobRow spec;
  spec.id = std::move(id);
  spec.model = std::move(model);
  return spec;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// The shape every rendering must have, whatever it draws.
void expect_well_formed(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "<path"), count(svg, "</path>"));
  EXPECT_EQ(count(svg, "<title>"), count(svg, "</title>"));
  EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);
}

// Geometry used below: plot area x 70..1270, y 62 (top) .. 562 (zero nodes), 500 px high, so
// with 8 nodes at the top one node is 62.5 px.

TEST(TimelinePlotMeans, ARecordHoldsUntilTheNextOne) {
  TimelinePlot plot(0.0, 100.0, 8, 2);
  plot.add(record(0.0, 8, {{0, 4}}));
  plot.add(record(25.0, 8));
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 0), 2.0);  // 4 nodes for 25 of the column's 50 s
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(0), 8.0);
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(1), 8.0);
}

TEST(TimelinePlotMeans, TheLastRecordHoldsUntilTheWindowEnd) {
  TimelinePlot plot(0.0, 100.0, 8, 4);
  plot.add(record(10.0, 6, {{3, 2}}));
  EXPECT_DOUBLE_EQ(plot.mean_nodes(3, 3), 2.0);
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(3), 6.0);
  // Column 0 is covered from 10 s on only: the mean is over the covered part.
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 3), 2.0);
  // Asking does not consume the pending record: more records still count.
  plot.add(record(75.0, 6));
  EXPECT_DOUBLE_EQ(plot.mean_nodes(3, 3), 0.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(2, 3), 2.0);
}

TEST(TimelinePlotMeans, ARecordSpanningColumnsSplitsByOverlap) {
  TimelinePlot plot(0.0, 40.0, 10, 4);
  plot.add(record(0.0, 10, {{0, 1}}));
  plot.add(record(15.0, 10, {{0, 5}, {1, 2}}));
  plot.add(record(35.0, 10));
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 0), 3.0);  // half at 1, half at 5
  EXPECT_DOUBLE_EQ(plot.mean_nodes(2, 0), 5.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(3, 0), 2.5);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(3, 1), 1.0);
}

TEST(TimelinePlotMeans, RecordsOutsideTheWindowAreClipped) {
  TimelinePlot plot(100.0, 200.0, 5, 4);
  plot.add(record(0.0, 5, {{0, 3}}));  // holds from the window start
  plot.add(record(150.0, 5));
  plot.add(record(500.0, 1, {{0, 1}}));  // after the window: nothing
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 0), 3.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 0), 3.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(2, 0), 0.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(3, 0), 0.0);
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(3), 5.0);
}

TEST(TimelinePlotMeans, AJobListedTwiceInARecordCountsOnce) {
  TimelinePlot plot(0.0, 10.0, 8, 1);
  plot.add(record(0.0, 8, {{2, 1}, {2, 3}, {1, 0}}));
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 2), 4.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(0, 1), 0.0);
}

TEST(TimelinePlotMeans, NoRecordsMeanZero) {
  const TimelinePlot plot(0.0, 10.0, 8, 3);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(1), 0.0);
}

TEST(TimelinePlotInput, OutOfOrderRecordsThrow) {
  TimelinePlot plot(0.0, 100.0, 8, 2);
  plot.add(record(50.0, 8));
  plot.add(record(50.0, 8));  // equal times are fine
  EXPECT_THROW(plot.add(record(49.0, 8)), std::invalid_argument);
  EXPECT_THROW(plot.add(record(std::nan(""), 8)), std::invalid_argument);
  EXPECT_THROW(plot.add(record(60.0, 8, {{-1, 2}})), std::invalid_argument);
  // A rejected record changes nothing.
  EXPECT_DOUBLE_EQ(plot.mean_hole_nodes(1), 8.0);
  EXPECT_DOUBLE_EQ(plot.mean_nodes(1, 0), 0.0);
}

TEST(TimelinePlotInput, BadWindowsAndColumnsThrow) {
  EXPECT_THROW(TimelinePlot(10.0, 10.0, 8), std::invalid_argument);
  EXPECT_THROW(TimelinePlot(10.0, 5.0, 8), std::invalid_argument);
  EXPECT_THROW(TimelinePlot(0.0, std::numeric_limits<double>::infinity(), 8),
               std::invalid_argument);
  EXPECT_THROW(TimelinePlot(0.0, 10.0, 0), std::invalid_argument);
  EXPECT_THROW(TimelinePlot(0.0, 10.0, 8, 0), std::invalid_argument);
  const TimelinePlot plot(0.0, 10.0, 8, 2);
  EXPECT_THROW((void)plot.mean_nodes(2, 0), std::out_of_range);
  EXPECT_THROW((void)plot.mean_hole_nodes(-1), std::out_of_range);
}

TEST(TimelinePlotSvg, BandsMatchHandComputedGeometry) {
  // One job holds 4 of 8 hole nodes during the first half of a 2-column window.
  TimelinePlot plot(0.0, 100.0, 8, 2);
  plot.add(record(0.0, 8, {{0, 4}}));
  plot.add(record(50.0, 8));
  for (const TimelineDetail detail : {TimelineDetail::capacity, TimelineDetail::jobs}) {
    const std::string svg = plot.render_svg({job("j1", "resnet")}, "tiny", detail);
    expect_well_formed(svg);
    // Column 0 is x 70..670; 4 of 8 nodes is y 312 (half-way up) down to 562.
    EXPECT_NE(svg.find("<path d=\"M70 312H670V562H70Z\""), std::string::npos) << svg;
    // Idle: above the job in column 0, the whole hole in column 1; one polygon.
    EXPECT_NE(svg.find("<path d=\"M70 62H1270V562H670V312H70Z\""), std::string::npos) << svg;
    EXPECT_NE(svg.find("<title>idle (hole, unallocated)</title>"), std::string::npos);
    EXPECT_EQ(count(svg, "<path"),
              3u);  // the band of the jobs or the job, idle, the legend's marker
  }
  EXPECT_NE(plot.render_svg({job("j1", "resnet")}, "tiny", TimelineDetail::jobs)
                .find("<title>job j1 (resnet): mean 4 nodes, from 0 s to 50 s</title>"),
            std::string::npos);
  EXPECT_NE(plot.render_svg({job("j1", "resnet")}, "tiny").find("<title>elastic jobs</title>"),
            std::string::npos);
}

// Bottom to top: the regular workload (what the hole leaves of the 8 nodes), the elastic jobs,
// the idle hole nodes. With 8 nodes at the top one node is 62.5 px.
TEST(TimelinePlotSvg, CapacityStacksRegularElasticAndIdle) {
  TimelinePlot plot(0.0, 60.0, 8, 1);
  plot.add(record(0.0, 6, {{1, 3}, {0, 2}}));
  const std::string svg = plot.render_svg({job("a", "m"), job("b", "m")}, "stack");
  expect_well_formed(svg);
  EXPECT_NE(svg.find("<path d=\"M70 437H1270V562H70Z\" fill=\"#b8c2cc\"><title>regular workload"),
            std::string::npos)
      << svg;  // 0..2
  EXPECT_NE(svg.find("<path d=\"M70 124.5H1270V437H70Z\" fill=\"#59a14f\"><title>elastic jobs"),
            std::string::npos)
      << svg;  // 2..7
  EXPECT_NE(svg.find("<path d=\"M70 62H1270V124.5H70Z\" fill=\"#f2e6c4\"><title>idle"),
            std::string::npos)
      << svg;  // 7..8
  // No job is drawn on its own unless asked.
  EXPECT_EQ(svg.find("<title>job "), std::string::npos);
}

TEST(TimelinePlotSvg, JobsStackByIndexBetweenTheRegularWorkloadAndTheIdleBand) {
  TimelinePlot plot(0.0, 60.0, 8, 1);
  plot.add(record(0.0, 6, {{1, 3}, {0, 2}}));
  const std::string svg =
      plot.render_svg({job("a", "m"), job("b", "m")}, "stack", TimelineDetail::jobs);
  expect_well_formed(svg);
  EXPECT_NE(svg.find("<path d=\"M70 437H1270V562H70Z\""), std::string::npos) << svg;    // 0..2
  EXPECT_NE(svg.find("<path d=\"M70 312H1270V437H70Z\""), std::string::npos) << svg;    // a: 2..4
  EXPECT_NE(svg.find("<path d=\"M70 124.5H1270V312H70Z\""), std::string::npos) << svg;  // b: 4..7
  EXPECT_NE(svg.find("<path d=\"M70 62H1270V124.5H70Z\""), std::string::npos) << svg;   // idle
  EXPECT_EQ(svg.find("<title>elastic jobs</title>"), std::string::npos);
}

TEST(TimelinePlotReclaims, MarkedInTheColumnOfTheirTimeWithHowManyAndWhen) {
  TimelinePlot plot(0.0, 100.0, 4, 4);
  plot.add(record(0.0, 4, {{0, 4}}));
  plot.add(record(30.0, 2, {{0, 2}}, 2));   // column 1 (25..50 s)
  plot.add(record(40.0, 1, {{0, 1}}, 1));   // column 1 as well
  plot.add(record(100.0, 1, {{0, 1}}, 5));  // the window's end: the last column
  plot.add(record(120.0, 1, {}, 7));        // after the window: not drawn
  EXPECT_EQ(plot.reclaimed_nodes(0), 0);
  EXPECT_EQ(plot.reclaimed_nodes(1), 3);
  EXPECT_EQ(plot.reclaimed_nodes(2), 0);
  EXPECT_EQ(plot.reclaimed_nodes(3), 5);
  const std::string svg = plot.render_svg({job("j", "m")}, "reclaims");
  expect_well_formed(svg);
  // Column 1's marker: x 370..670, so a triangle centred on 520 above the plot's top (62).
  EXPECT_NE(svg.find("<path d=\"M516 53h8l-4 8Z\" fill=\"#d62728\"><title>3 nodes taken back "
                     "from elastic jobs, 25 s to 50 s</title></path>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>5 nodes taken back from elastic jobs, 75 s to 100 s</title>"),
            std::string::npos);
  EXPECT_EQ(count(svg, "taken back from elastic jobs, "), 2u);
  EXPECT_NE(svg.find("; 8 nodes taken back from them"), std::string::npos);
  EXPECT_NE(svg.find("nodes taken back (reclaim)"), std::string::npos);  // the legend
}

TEST(TimelinePlotReclaims, ARejectedRecordMarksNothing) {
  TimelinePlot plot(0.0, 100.0, 4, 2);
  plot.add(record(60.0, 4));
  EXPECT_THROW(plot.add(record(10.0, 4, {}, 3)), std::invalid_argument);
  EXPECT_THROW(plot.add(record(70.0, 4, {{-1, 1}}, 3)), std::invalid_argument);
  EXPECT_EQ(plot.reclaimed_nodes(0), 0);
  EXPECT_EQ(plot.reclaimed_nodes(1), 0);
  EXPECT_THROW((void)plot.reclaimed_nodes(2), std::out_of_range);
}

TEST(TimelinePlotSvg, GapsSplitABandIntoPolygonsOfOnePath) {
  TimelinePlot plot(0.0, 30.0, 4, 3);
  plot.add(record(0.0, 4, {{0, 4}}));
  plot.add(record(10.0, 4));
  plot.add(record(20.0, 4, {{0, 4}}));
  const std::string svg = plot.render_svg({job("j", "m")}, "gap", TimelineDetail::jobs);
  EXPECT_NE(svg.find("<path d=\"M70 62H470V562H70ZM870 62H1270V562H870Z\""), std::string::npos)
      << svg;
  EXPECT_EQ(count(svg, "<title>job j (m)"), 1u);
}

TEST(TimelinePlotSvg, SteadyAllocationsMergeIntoFewSegments) {
  TimelinePlot plot(0.0, 1200.0, 10, 1200);
  for (int t = 0; t < 1200; t += 7) plot.add(record(t, 10, {{0, 5}}));
  const std::string svg = plot.render_svg({job("steady", "m")}, "steady");
  EXPECT_NE(svg.find("<path d=\"M70 312H1270V562H70Z\""), std::string::npos);
  EXPECT_NE(svg.find("<path d=\"M70 62H1270V312H70Z\""), std::string::npos);  // idle
}

TEST(TimelinePlotSvg, EscapesXmlInIdsModelsAndTitle) {
  TimelinePlot plot(0.0, 10.0, 2, 1);
  plot.add(record(0.0, 2, {{0, 1}}));
  const std::string svg =
      plot.render_svg({job("a<b&c", "m\"x'")}, "run <1> & \"2\"", TimelineDetail::jobs);
  expect_well_formed(svg);
  EXPECT_NE(svg.find("job a&lt;b&amp;c (m&quot;x&apos;)"), std::string::npos);
  EXPECT_NE(svg.find("<title>run &lt;1&gt; &amp; &quot;2&quot;</title>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(svg.find("<1>"), std::string::npos);
}

TEST(TimelinePlotSvg, ControlCharactersXmlForbidsAreReplaced) {
  TimelinePlot plot(0.0, 10.0, 2, 1);
  plot.add(record(0.0, 2, {{0, 1}}));
  const std::string svg =
      plot.render_svg({job(std::string("a\x01") + "b", "m")}, "t\x1b", TimelineDetail::jobs);
  EXPECT_NE(svg.find("<title>job a?b (m)"), std::string::npos);
  EXPECT_NE(svg.find("<title>t?</title>"), std::string::npos);
}

TEST(TimelinePlotSvg, NoRecordsGiveAnEmptyPlotWithAxes) {
  const TimelinePlot plot(0.0, 10.0, 1, 1);
  const std::string svg = plot.render_svg({}, "nothing");
  expect_well_formed(svg);
  EXPECT_EQ(count(svg, "<path"), 1u);  // the legend's reclaim marker only
  EXPECT_NE(svg.find(">0 s</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10 s</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);                 // y axis 0..1 node
  EXPECT_NE(svg.find("idle (hole, unallocated)"), std::string::npos);  // legend
  EXPECT_NE(svg.find("no hole node-time in this window"), std::string::npos);
}

TEST(TimelinePlotSvg, TimeLabelsUseUnitsThatFitTheWindow) {
  const auto labels = [](double span_s) { return TimelinePlot(0.0, span_s, 4).render_svg({}, ""); };
  const std::string day = labels(86400.0);
  EXPECT_NE(day.find(">6 h</text>"), std::string::npos);
  EXPECT_NE(day.find(">24 h</text>"), std::string::npos);
  const std::string year = labels(365.0 * 86400.0);
  EXPECT_NE(year.find(">day 0</text>"), std::string::npos);
  EXPECT_NE(year.find(">day 30</text>"), std::string::npos);
  EXPECT_NE(year.find(">day 360</text>"), std::string::npos);
  const std::string hour = labels(3600.0);
  EXPECT_NE(hour.find(">30 min</text>"), std::string::npos);
  const std::string second = labels(0.5);
  EXPECT_NE(second.find(">0.5 s</text>"), std::string::npos);
}

TEST(TimelinePlotSvg, ReportsUtilizationAndGrowsTheAxisToFitTheData) {
  TimelinePlot plot(0.0, 100.0, 4, 10);
  plot.add(record(0.0, 6, {{0, 3}}));
  const std::string svg = plot.render_svg({job("j", "m")}, "t");
  EXPECT_NE(svg.find("elastic jobs held 50% of the idle (hole) node-time"), std::string::npos);
  EXPECT_NE(svg.find(">6</text>"), std::string::npos);  // 6 hole nodes > max_nodes 4
}

TEST(TimelinePlotSvg, ModelsGetColoursAndNeighbouringJobsDifferentShades) {
  TimelinePlot plot(0.0, 10.0, 6, 1);
  plot.add(record(0.0, 6, {{0, 1}, {1, 1}, {2, 1}}));
  const std::string svg =
      plot.render_svg({job("a", "x"), job("b", "x"), job("c", "y")}, "c", TimelineDetail::jobs);
  const auto fill_of = [&](const std::string& id) {
    const std::size_t title = svg.find("<title>job " + id + " ");
    const std::size_t fill = svg.rfind("fill=\"", title);
    return svg.substr(fill + 6, 7);
  };
  EXPECT_NE(fill_of("a"), fill_of("b"));
  EXPECT_NE(fill_of("a"), fill_of("c"));
  EXPECT_NE(fill_of("b"), fill_of("c"));
  // The legend lists each model once.
  EXPECT_EQ(count(svg, ">x</text>"), 1u);
  EXPECT_EQ(count(svg, ">y</text>"), 1u);
}

TEST(TimelinePlotSvg, AJobPastTheJobListIsStillDrawn) {
  TimelinePlot plot(0.0, 10.0, 2, 1);
  plot.add(record(0.0, 2, {{5, 1}}));
  const std::string svg = plot.render_svg({}, "t", TimelineDetail::jobs);
  expect_well_formed(svg);
  EXPECT_NE(svg.find("<title>job #5 (unknown model)"), std::string::npos);
}

TEST(TimelinePlotSvg, AYearOfManyShortJobsStaysSmall) {
  const double day = 86400.0;
  const int job_count = 3000;
  std::vector<JobRow> jobs;
  for (int j = 0; j < job_count; ++j) {
    jobs.push_back(job("job-" + std::to_string(j), "model" + std::to_string(j % 5)));
  }
  TimelinePlot plot(0.0, 365.0 * day, 10000);
  // Every 10 minutes, the ten jobs submitted last hold nodes; job j starts at j * 2.9 hours.
  const double job_every_s = 365.0 * day / job_count;
  for (double t = 0.0; t < 365.0 * day; t += 600.0) {
    const int newest = static_cast<int>(t / job_every_s);
    std::vector<JobNodes> allocation;
    for (int j = std::max(0, newest - 9); j <= newest; ++j) allocation.push_back({j, 500});
    plot.add(record(t, 8000, std::move(allocation)));
  }
  const std::string svg = plot.render_svg(jobs, "a year", TimelineDetail::jobs);
  expect_well_formed(svg);
  // Each job's, the regular workload's, the idle nodes' and the legend's reclaim marker.
  EXPECT_EQ(count(svg, "<path"), static_cast<std::size_t>(job_count) + 3);
  EXPECT_NE(svg.find("<title>job job-2999 (model4)"), std::string::npos);
  EXPECT_LT(svg.size(), 4'000'000u);
  // Without per-job detail the elastic jobs are one area, whatever their number.
  const std::string capacity = plot.render_svg(jobs, "a year");
  EXPECT_EQ(count(capacity, "<path"), 4u);
  EXPECT_LT(capacity.size(), 200'000u);
}

}  // namespace
}  // namespace gaptrain::sim::timeline_plot_test
