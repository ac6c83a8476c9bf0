// The SWF reader (simulator/swf_reader.cpp): the header's machine size, the records it can
// replay and those it skips, malformed records named by their line, the real KTH log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/workload_io.hpp"
#include "workload_io_testing.hpp"

namespace gaptrain::sim::swf_reader_test {
namespace {

using namespace workload_io_testing;

TEST(WorkloadIoSwf, ParsesHeaderAndRecords) {
  const std::string text =
      "; Version: 2.2\n"
      "; UnixStartTime: 843480031\n"
      "; MaxNodes: 100\n"
      "; MaxProcs: 400\n"
      ";\n"
      "   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 "
      "-1\n"
      "\n"
      "16 600022.5 -1 2488.25 -1 -1 -1 25 -1 -1 1 13 13 -1 -1 -1 -1 -1\r\n"
      "\t17\t600476 0 30 100 1.5 -1 3 60 -1 0 14 14 -1 -1 -1 -1 -1";
  const SwfLog log = parse_swf(text, "t.swf");
  EXPECT_EQ(log.max_nodes, 100);
  EXPECT_EQ(log.unix_start_time, 843480031);
  EXPECT_EQ(log.skipped, 0);
  ASSERT_EQ(log.jobs.size(), 3u);

  EXPECT_EQ(log.jobs[0].id, 15);
  EXPECT_EQ(log.jobs[0].submit_s, 599850.0);
  EXPECT_EQ(log.jobs[0].run_s, 3477.0);
  EXPECT_EQ(log.jobs[0].nodes, 4);
  EXPECT_EQ(log.jobs[0].requested_s, 53940.0);

  // Allocated processors unknown: the requested ones; requested time unknown: the run time.
  EXPECT_EQ(log.jobs[1].id, 16);
  EXPECT_EQ(log.jobs[1].submit_s, 600022.5);
  EXPECT_EQ(log.jobs[1].run_s, 2488.25);
  EXPECT_EQ(log.jobs[1].nodes, 25);
  EXPECT_EQ(log.jobs[1].requested_s, 2488.25);

  // Allocated wins over requested; a job as wide as the machine fits.
  EXPECT_EQ(log.jobs[2].id, 17);
  EXPECT_EQ(log.jobs[2].nodes, 100);
  EXPECT_EQ(log.jobs[2].requested_s, 60.0);
}

TEST(WorkloadIoSwf, SkipsAndCountsRecordsItCannotReplay) {
  const std::string text =
      "; MaxNodes: 8\n"
      "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 5 0  0 2 -1 -1 2 60 -1 0 1 1 -1 -1 -1 -1 -1\n"    // ran 0 s (cancelled)
      "3 6 0 -1 2 -1 -1 2 60 -1 0 1 1 -1 -1 -1 -1 -1\n"    // run time unknown
      "4 7 0 10 -1 -1 -1 -1 60 -1 0 1 1 -1 -1 -1 -1 -1\n"  // size unknown
      "5 8 0 10 9 -1 -1 9 60 -1 1 1 1 -1 -1 -1 -1 -1\n"    // wider than the machine
      "6 9 0 10 8 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1\n";
  const SwfLog log = parse_swf(text, "t.swf");
  EXPECT_EQ(log.skipped, 4);
  ASSERT_EQ(log.jobs.size(), 2u);
  EXPECT_EQ(log.jobs[0].id, 1);
  EXPECT_EQ(log.jobs[1].id, 6);
}

TEST(WorkloadIoSwf, TakesTheMachineSizeFromMaxProcsWithoutMaxNodes) {
  const std::string record = "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n";
  EXPECT_EQ(parse_swf("; MaxProcs: 64\n" + record, "t.swf").max_nodes, 64);
  EXPECT_EQ(parse_swf("; MaxNodes: 0\n; MaxProcs: 64\n" + record, "t.swf").max_nodes, 64);
  EXPECT_EQ(parse_swf("; MaxProcs: 64\n; MaxNodes: 16\n" + record, "t.swf").max_nodes, 16);
  // Absent UnixStartTime reads as 0.
  EXPECT_EQ(parse_swf("; MaxProcs: 64\n" + record, "t.swf").unix_start_time, 0);
}

TEST(WorkloadIoSwf, RejectsMalformedRecordsNamingTheLine) {
  const std::string header = "; MaxNodes: 100\n;\n";
  expect_errors(
      [](const std::string& text) { parse_swf(text, "kth.swf"); },
      {
          {header + "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1\n", "kth.swf:3",
           "expected 18 fields, got 17"},
          {header + "\n1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1 7\n", "kth.swf:4",
           "expected 18 fields, got 19"},
          {header + "1 0 0 1O 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 4: expected a number, got \"1O\""},
          {header + "1 -1 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 2: expected a known submit time >= 0 and at most 1e10 (seconds into the log), "
           "got \"-1\""},
          // Times past bounds.hpp's limits (2^63 s once stalled the replay).
          {header + "1 9223372036854775807 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
           "kth.swf:3", "field 2: expected a known submit time >= 0 and at most 1e10"},
          {header + "1 0 0 1e308 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 4: expected a run time of at most 315360000 seconds (ten years) or -1 "
           "(unknown), got \"1e308\""},
          {header + "1 0 0 10 2 -1 -1 2 315360001 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 9: expected a requested time of at most 315360000 seconds"},
          {header + "1 0 0 10 2.5 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 5: expected an integer, got \"2.5\""},
          {header + "x1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "kth.swf:3",
           "field 1: expected a number, got \"x1\""},
          {"; MaxNodes: lots\n", "kth.swf:1", "MaxNodes: expected an integer, got \"lots\""},
      });
}

TEST(WorkloadIoSwf, RequiresTheMachineSize) {
  const InputError error = input_error_from([] {
    parse_swf("; Computer: IBM SP2\n1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf");
  });
  EXPECT_EQ(error.field(), "t.swf");
  EXPECT_THAT(error.what(), HasSubstr("MaxNodes"));
  EXPECT_THAT(error.what(), HasSubstr("MaxProcs"));
}

TEST(WorkloadIoSwf, ParsesTheRealKthLog) {
  const std::string path = shared_data("traces/KTH-SP2-1996-2.1-cln.swf.gz");
  const SwfLog log = parse_swf(read_input_file(path), path);
  EXPECT_EQ(log.max_nodes, 100);
  EXPECT_EQ(log.unix_start_time, 843480031);
  // 28,476 records (its "; MaxRecords:"); 9 of them have no run time or size.
  EXPECT_EQ(log.skipped, 9);
  ASSERT_EQ(log.jobs.size(), 28476u - 9u);
  EXPECT_EQ(log.jobs.front().id, 15);
  EXPECT_EQ(log.jobs.front().submit_s, 599850.0);
  EXPECT_EQ(log.jobs.front().run_s, 3477.0);
  EXPECT_EQ(log.jobs.front().nodes, 4);
  EXPECT_EQ(log.jobs.front().requested_s, 53940.0);
  EXPECT_EQ(log.jobs.back().id, 28490);
  EXPECT_EQ(log.jobs.back().submit_s, 29363618.0);
  for (const SwfJob& job : log.jobs) {
    ASSERT_GE(job.nodes, 1) << job.id;
    ASSERT_LE(job.nodes, 100) << job.id;
    ASSERT_GT(job.run_s, 0.0) << job.id;
  }
}

}  // namespace
}  // namespace gaptrain::sim::swf_reader_test
