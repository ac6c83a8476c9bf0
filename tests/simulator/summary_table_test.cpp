// `gaptrain simulate`'s table for people: units, grouping, alignment and the optional rows.
#include "simulator/summary_table.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gaptrain::sim::summary_table_test {
namespace {

// One hour of 10 nodes: 30,000 hole node-seconds of which 18,000 held by elastic jobs, so
// 10 - 30,000 / 3,600 = 1.67 regular node-hours, 5 elastic, 3.33 idle.
SimSummary an_hour() {
  SimSummary s;
  s.simulated_s = 3600.0;
  s.hole_node_seconds = 30000.0;
  s.allocated_node_seconds = 18000.0;
  s.utilization = 0.6;
  s.usable_utilization = 0.75;
  s.useful_samples = 1234567.0;
  s.ideal_samples = 1300000.0;
  s.efficiency = 1234567.0 / 1300000.0;
  s.jobs_submitted = 12;
  s.jobs_completed = 3;
  s.mean_jct_s = 5400.0;
  s.p90_jct_s = 9000.0;
  s.rescales = 1234;
  s.rescale_starts = 34;
  s.rescale_grows = 700;
  s.rescale_shrinks = 500;
  s.reclaims = 1;
  s.regular_waits = 2;
  s.regular_wait_s_p50 = 0.5;
  s.regular_wait_s_p99 = 1.0;
  s.regular_wait_s_max = 1.0;
  s.solves = 40;
  s.cycles = 50;
  s.solver_ms_p50 = 1.25;
  s.solver_ms_p99 = 8.0;
  s.solver_ms_max = 12.5;
  return s;
}

RunFacts facts() {
  RunFacts f;
  f.trace = "small.swf";
  f.policy = "gaptrain";
  f.settings = "speedup, horizon 120 s";
  f.nodes = 10;
  f.start_s = 600.0;
  f.wall_s = 0.25;
  return f;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The line whose label is `label`, or "" when none is.
std::string row(const std::string& table, const std::string& label) {
  for (const std::string& line : lines(table)) {
    if (line.rfind(label + " ", 0) == 0) return line;
  }
  return "";
}

TEST(SummaryTable, SaysWhatRanAndTheHeadlineNumbersWithUnits) {
  const std::string table = summary_table(an_hour(), facts(), std::nullopt);
  EXPECT_EQ(lines(table)[0],
            "gaptrain simulate: small.swf, policy gaptrain (speedup, horizon 120 s)");
  EXPECT_EQ(row(table, "nodes"), "nodes           10");
  EXPECT_EQ(row(table, "window"), "window          60 min from 10 min into the trace (3,600 s)");
  EXPECT_EQ(row(table, "useful samples"),
            "useful samples  1.23457e+06, efficiency 0.950 (of 1.3e+06 with free rescales)");
  EXPECT_EQ(row(table, "node-hours"),
            "node-hours      regular 1.7, elastic 5.0, idle 3.3 (of 10.0)");
  EXPECT_EQ(row(table, "utilization"),
            "utilization     0.600 of the hole node-time held by elastic jobs; usable 0.750");
  EXPECT_EQ(row(table, "jobs"),
            "jobs            12 submitted, 3 completed, 9 unfinished at the window's end; "
            "completed in 90 min on average, p90 2.5 h");
  EXPECT_EQ(row(table, "resizes"), "resizes         1,234: 34 starts, 700 grows, 500 shrinks");
  EXPECT_EQ(row(table, "reclaims"),
            "reclaims        1 node taken back; regular jobs waited 2 times (p50 0.5 s, p99 1 s, "
            "max 1 s)");
  EXPECT_EQ(row(table, "solver"),
            "solver          40 solves in 50 decisions: p50 1.25 ms, p99 8 ms, max 12.5 ms");
  EXPECT_EQ(row(table, "wall time"), "wall time       0.25 s");
  EXPECT_EQ(row(table, "oracle bound"), "oracle bound    not computed (--oracle)");
  EXPECT_TRUE(table.ends_with("\n"));
}

TEST(SummaryTable, EveryValueStartsInOneColumn) {
  for (const std::string& line : lines(summary_table(an_hour(), facts(), std::nullopt))) {
    if (line.starts_with("gaptrain simulate:") || line.starts_with("usable:")) continue;
    ASSERT_GE(line.size(), 17u) << line;
    EXPECT_EQ(line[15], ' ') << line;  // a label never runs into its value
    EXPECT_NE(line[16], ' ') << line;
  }
}

TEST(SummaryTable, AMixThatAllCompletedSaysItsMakespan) {
  SimSummary s = an_hour();
  s.jobs_submitted = s.jobs_completed = 3;
  s.makespan_s = 3000.0;
  EXPECT_EQ(row(summary_table(s, facts(), std::nullopt), "jobs"),
            "jobs            3 submitted, 3 completed, 0 unfinished at the window's end; "
            "completed in 90 min on average, p90 2.5 h; all done in 50 min");
}

TEST(SummaryTable, TheOracleRowSaysTheBoundAndTheFractionOfIt) {
  const std::string table = summary_table(an_hour(), facts(), OracleFacts{2469134.0, "per-job LP"});
  EXPECT_EQ(row(table, "oracle bound"),
            "oracle bound    2.46913e+06 (per-job LP): this run trained 0.500 of it");
}

TEST(SummaryTable, LearnedCurvesAndAQuietRunSaySo) {
  RunFacts learned = facts();
  learned.learn = true;
  SimSummary quiet = an_hour();
  quiet.regular_waits = 0;
  quiet.reclaims = 0;
  quiet.solves = 0;
  const std::string table = summary_table(quiet, learned, std::nullopt);
  EXPECT_TRUE(lines(table)[0].ends_with(", curves learned")) << table;
  EXPECT_EQ(row(table, "reclaims"),
            "reclaims        0 nodes taken back; no regular job waited for a node");
  EXPECT_EQ(row(table, "solver"), "solver          0 solves in 50 decisions");
}

// The home mode's books: preempted satellites held no regular job up, jobs paused at home.
TEST(SummaryTable, PreemptionsRequeuesAndPausesAreSaid) {
  SimSummary s = an_hour();
  s.reclaims = 5;
  s.preemptions = 5;
  s.regular_waits = 0;
  s.requeues = 0;
  s.pauses = 2;
  const std::string table = summary_table(s, facts(), std::nullopt);
  EXPECT_EQ(row(table, "reclaims"),
            "reclaims        5 nodes taken back (5 preempted by Slurm at once); no regular job "
            "waited for a node");
  EXPECT_EQ(
      row(table, "requeues"),
      "requeues        0 (jobs back in the queue); 2 pauses (jobs at home left with no node)");
  EXPECT_EQ(
      row(summary_table(an_hour(), facts(), std::nullopt), "requeues"),
      "requeues        0 (jobs back in the queue); 0 pauses (jobs at home left with no node)");
}

TEST(SummaryTable, ARegularWorkloadBeyondTheHolesIsNeverNegative) {
  SimSummary s = an_hour();
  s.hole_node_seconds = 50000.0;  // more than 10 nodes for an hour: only possible by rounding
  EXPECT_NE(row(summary_table(s, facts(), std::nullopt), "node-hours").find("regular 0.0,"),
            std::string::npos);
}

TEST(DurationText, PicksTheUnitThatKeepsTheNumberShort) {
  EXPECT_EQ(duration_text(0.0), "0 s");
  EXPECT_EQ(duration_text(45.0), "45 s");
  EXPECT_EQ(duration_text(119.0), "119 s");
  EXPECT_EQ(duration_text(750.0), "12.5 min");
  EXPECT_EQ(duration_text(3.0 * 3600.0), "3 h");
  EXPECT_EQ(duration_text(30.0 * 86400.0), "30 days");
  EXPECT_EQ(duration_text(334.5 * 86400.0), "334.5 days");
  EXPECT_EQ(duration_text(std::numeric_limits<double>::infinity()), "unknown");
}

TEST(Grouped, GroupsThousandsAndKeepsTheDecimals) {
  EXPECT_EQ(grouped(0.0, 0), "0");
  EXPECT_EQ(grouped(999.0, 0), "999");
  EXPECT_EQ(grouped(1000.0, 0), "1,000");
  EXPECT_EQ(grouped(1234567.891, 1), "1,234,567.9");
  EXPECT_EQ(grouped(-12345.0, 0), "-12,345");
  EXPECT_EQ(grouped(-0.01, 1), "0.0");
  EXPECT_EQ(grouped(123456.0, 2), "123,456.00");
}

}  // namespace
}  // namespace gaptrain::sim::summary_table_test
