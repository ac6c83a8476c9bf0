// The job mix, curve, node-type and node-event readers (simulator/workload_io.cpp): what each
// reads, and each bad row refused naming its line and column.
#include "simulator/workload_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "workload_io_testing.hpp"

namespace gaptrain::sim::workload_io_test {
namespace {

using namespace workload_io_testing;

// ---- Node events ----------------------------------------------------------------------------

TEST(WorkloadIoNodeEvents, ParsesRowsWithOrWithoutHeader) {
  const std::string rows =
      "1700000000,nid001,idle\r\n"
      "\n"
      "1700000000.5,nid002,busy\n"
      "1700000010,nid001,busy";
  for (const std::string& text : {"time,node,state\n" + rows, rows}) {
    const std::vector<NodeEventRow> events = parse_node_events(text, "events.csv");
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].time_s, 1700000000.0);
    EXPECT_EQ(events[0].node, "nid001");
    EXPECT_TRUE(events[0].idle);
    EXPECT_EQ(events[1].time_s, 1700000000.5);
    EXPECT_EQ(events[1].node, "nid002");
    EXPECT_FALSE(events[1].idle);
    EXPECT_EQ(events[2].time_s, 1700000010.0);
    EXPECT_FALSE(events[2].idle);
  }
  EXPECT_TRUE(parse_node_events("", "events.csv").empty());
  EXPECT_TRUE(parse_node_events("time,node,state\n", "events.csv").empty());
}

TEST(WorkloadIoNodeEvents, RejectsBadRowsNamingTheLine) {
  expect_errors([](const std::string& text) { parse_node_events(text, "events.csv"); },
                {
                    {"time,node,state\n10,n1,idle\n20,n2,busy\n15,n1,busy\n", "events.csv:4",
                     "time: 15 is before 20 on line 3"},
                    {"10,n1,Idle\n", "events.csv:1", "state: expected idle or busy, got \"Idle\""},
                    {"10,n1,down\n", "events.csv:1", "state: expected idle or busy, got \"down\""},
                    {"10,,idle\n", "events.csv:1", "node: expected a node name"},
                    {"10,n1\n", "events.csv:1",
                     "expected 3 columns (time,node,state) or 4 (time,node,state,type), got 2"},
                    {"10,n1,idle,x,y\n", "events.csv:1",
                     "expected 3 columns (time,node,state) or 4 (time,node,state,type), got 5"},
                    {"\n\nnoon,n1,idle\n", "events.csv:3",
                     "time: expected epoch seconds >= 0 and at most 1e10, got \"noon\""},
                    // A header is only a header on the first line.
                    {"10,n1,idle\ntime,node,state\n", "events.csv:2", "time: expected epoch"},
                    // Times and names past bounds.hpp's limits.
                    {"10,n1,idle\n1e308,n1,busy\n", "events.csv:2",
                     "time: expected epoch seconds >= 0 and at most 1e10, got \"1e308\""},
                    {"-5,n1,idle\n", "events.csv:1", "time: expected epoch seconds >= 0"},
                    {"10," + std::string(256, 'n') + ",idle\n", "events.csv:1",
                     "node: a name of 256 bytes, \"nnnnn"},
                });
}

TEST(WorkloadIoNodeEvents, ATypeColumnGivesEachNodeItsType) {
  const std::string rows =
      "10,a1,idle,a100\n"
      "10,v1,idle,v100\n"
      "20,a1,busy,\n"  // an empty type says nothing
      "30,a1,idle,a100\n"
      "30,u1,idle\n";  // a row may leave the column out
  for (const std::string& text : {"time,node,state,type\n" + rows, rows}) {
    const std::vector<NodeEventRow> events = parse_node_events(text, "events.csv");
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].type, "a100");
    EXPECT_EQ(events[1].type, "v100");
    EXPECT_EQ(events[2].type, "");
    EXPECT_EQ(events[4].type, "");
  }
}

TEST(WorkloadIoNodeEvents, RejectsANodeGivenTwoTypes) {
  expect_errors(
      [](const std::string& text) { parse_node_events(text, "events.csv"); },
      {
          {"time,node,state,type\n10,a1,idle,a100\n20,a1,busy,\n30,a1,idle,v100\n", "events.csv:4",
           "type: node \"a1\" is of type \"a100\" on line 2, got \"v100\"; a node has "
           "one type"},
          {"10,a1,idle," + std::string(256, 't') + "\n", "events.csv:1",
           "type: a name of 256 bytes"},
      });
}

TEST(WorkloadIoNodeEvents, ReadsQuotedAndSpacedFieldsAsTheirValue) {
  // What spreadsheets and hand edits write: quotes, spaces around commas, a quoted header.
  const std::vector<NodeEventRow> events = parse_node_events(
      "\"time\", node ,state\n"
      "10,node1,idle\n"
      "11,\"node1\",busy\n"
      "12, node2 ,idle\n"
      "13,\tnode2\t,busy\n"
      "14,  \"node3\"  , \"idle\" \n"
      "15,\"a,b\",idle\n"
      "16,\"say \"\"hi\"\"\",idle\n"
      "\"17\",n\u0153ud,idle\n",
      "events.csv");
  std::vector<std::string> nodes;
  for (const NodeEventRow& event : events) nodes.push_back(event.node);
  EXPECT_EQ(nodes, (std::vector<std::string>{"node1", "node1", "node2", "node2", "node3", "a,b",
                                             "say \"hi\"", "n\u0153ud"}));
  EXPECT_TRUE(events[4].idle);
  EXPECT_EQ(events[7].time_s, 17.0);
}

TEST(WorkloadIoNodeEvents, RejectsMisplacedQuotesAndInvalidUtf8NamingTheColumn) {
  expect_errors(
      [](const std::string& text) { parse_node_events(text, "events.csv"); },
      {
          {"10,\"n1,idle\n", "events.csv:1", "node: the quote opened at character 4 is not closed"},
          {"10,\"n1\"x,idle\n", "events.csv:1",
           "node: expected a comma after the closing quote, got \"x\""},
          {"10,n\"1,idle\n", "events.csv:1", "node: a quote inside an unquoted field"},
          {"10,n1,idle\n11,n\xff"
           "1,idle\n",
           "events.csv:2", "node: not valid UTF-8 (byte 2 of the field): \"n\\xff1\""},
          // An overlong '/', a UTF-16 surrogate, a character past U+10FFFF, a cut sequence.
          {"10,\xc0\xaf,idle\n", "events.csv:1", "node: not valid UTF-8 (byte 1"},
          {"10,\xed\xa0\x80,idle\n", "events.csv:1", "node: not valid UTF-8 (byte 1"},
          {"10,\xf4\x90\x80\x80,idle\n", "events.csv:1", "node: not valid UTF-8 (byte 1"},
          {"10,ab\xc3,idle\n", "events.csv:1", "node: not valid UTF-8 (byte 3"},
          {"10,n1,idle,\xff\n", "events.csv:1", "column 4: not valid UTF-8"},
      });
}

TEST(WorkloadIoNodeEvents, ParsesALargeTrace) {
  // 4,000 nodes changing state every minute for 500 minutes: 2 million rows.
  constexpr int kNodes = 4000;
  constexpr int kSteps = 500;
  std::string text = "time,node,state\n";
  text.reserve(std::size_t{kNodes} * kSteps * 32);
  for (int step = 0; step < kSteps; ++step) {
    const std::string time = std::to_string(1700000000 + 60 * step);
    for (int node = 0; node < kNodes; ++node) {
      text += time + ",nid" + std::to_string(node) + ((node + step) % 2 ? ",busy\n" : ",idle\n");
    }
  }
  const std::vector<NodeEventRow> events = parse_node_events(text, "big.csv");
  ASSERT_EQ(events.size(), std::size_t{kNodes} * kSteps);
  EXPECT_EQ(events.back().time_s, 1700000000.0 + 60 * (kSteps - 1));
  EXPECT_EQ(events.back().node, "nid3999");
  EXPECT_TRUE(events.back().idle);  // (3999 + 499) is even
}

// ---- Jobs -----------------------------------------------------------------------------------

constexpr std::string_view kJobsHeader =
    "id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,down_cost_s\n";

TEST(WorkloadIoJobs, ParsesTheExampleJobMix) {
  const std::string path = shared_data("models/jobs-example.csv");
  const std::vector<JobRow> jobs = parse_jobs(read_input_file(path), path);
  ASSERT_EQ(jobs.size(), 30u);
  EXPECT_EQ(jobs[0].id, "job000");
  EXPECT_EQ(jobs[0].submit_s, 0.0);
  EXPECT_EQ(jobs[0].model, "shufflenet");
  EXPECT_EQ(jobs[0].min_nodes, 2);
  EXPECT_EQ(jobs[0].max_nodes, 16);
  EXPECT_EQ(jobs[0].work_samples, 20000000.0);
  EXPECT_EQ(jobs[0].up_cost_s, 17.648);
  EXPECT_EQ(jobs[0].down_cost_s, 11.302);
  EXPECT_EQ(jobs[0].line, 2);
  EXPECT_EQ(jobs[1].submit_s, 600.0);
  EXPECT_EQ(jobs[29].line, 31);
}

TEST(WorkloadIoJobs, ParsesRowsAndRecordsTheirLines) {
  const std::string text = std::string(kJobsHeader) +
                           "a,0,vgg16,1,1,1e6,0,0\r\n"
                           "\n"
                           "b,12.5,resnet18,2,8,500,1.5,2.25\n";
  const std::vector<JobRow> jobs = parse_jobs(text, "jobs.csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "a");
  EXPECT_EQ(jobs[0].work_samples, 1e6);
  EXPECT_EQ(jobs[0].line, 2);
  EXPECT_EQ(jobs[1].id, "b");
  EXPECT_EQ(jobs[1].submit_s, 12.5);
  EXPECT_EQ(jobs[1].model, "resnet18");
  EXPECT_EQ(jobs[1].min_nodes, 2);
  EXPECT_EQ(jobs[1].max_nodes, 8);
  EXPECT_EQ(jobs[1].up_cost_s, 1.5);
  EXPECT_EQ(jobs[1].down_cost_s, 2.25);
  EXPECT_EQ(jobs[1].line, 4);
  EXPECT_TRUE(parse_jobs(kJobsHeader, "jobs.csv").empty());
}

// A mix with batch ranges: two more columns; empty cells leave a job without one.
TEST(WorkloadIoJobs, BatchColumnsGiveAJobItsBatchRange) {
  const std::string h =
      "id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,down_cost_s,batch_size,"
      "max_batch_size\n";
  const auto jobs =
      parse_jobs(h + "a,0,cifar10,1,8,100,1,1,128,4096\nb,0,bert,1,4,100,1,1,,\n", "jobs.csv");
  ASSERT_EQ(jobs.size(), 2u);
  ASSERT_TRUE(jobs[0].batch.has_value());
  EXPECT_EQ(jobs[0].batch->tuned, 128);
  EXPECT_EQ(jobs[0].batch->max, 4096);
  EXPECT_EQ(jobs[0].batch->max_per_node, 0);
  EXPECT_FALSE(jobs[1].batch.has_value());
  EXPECT_FALSE(parse_jobs(std::string(kJobsHeader) + "a,0,m,1,2,100,1,1\n", "jobs.csv")[0].batch);
  expect_errors([](const std::string& text) { parse_jobs(text, "jobs.csv"); },
                {
                    {h + "a,0,m,1,2,100,1,1,128,64\n", "jobs.csv:2",
                     "max_batch_size: expected an integer >= batch_size (128), got \"64\""},
                    {h + "a,0,m,1,2,100,1,1,0,64\n", "jobs.csv:2",
                     "batch_size: expected an integer >= 1, got \"0\""},
                    {h + "a,0,m,1,2,100,1,1,128,\n", "jobs.csv:2",
                     "max_batch_size: expected an integer >= batch_size (128), got \"\""},
                    {h + "a,0,m,1,2,100,1,1,1,2000000000\n", "jobs.csv:2",
                     "max_batch_size: expected at most 1000000000"},
                    {h + "a,0,m,1,2,100,1,1\n", "jobs.csv:2", "expected 10 columns, got 8"},
                });
}

TEST(WorkloadIoJobs, AnAllowedSizesColumnGivesAJobItsCounts) {
  const std::string h =
      "id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,down_cost_s,allowed_sizes\n";
  const auto jobs = parse_jobs(
      h + "a,0,m,4,16,100,1,1,4-16:4\nb,0,m,1,8,100,1,1,\"1,2,4,8\"\nc,0,m,1,4,100,1,1,\n"
          "d,0,m,2,4,100,1,1,2-4\n",
      "jobs.csv");
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].allowed_sizes, (std::vector<int>{4, 8, 12, 16}));
  EXPECT_EQ(jobs[1].allowed_sizes, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_TRUE(jobs[2].allowed_sizes.empty());  // every count
  EXPECT_TRUE(jobs[3].allowed_sizes.empty());
  const std::string hb =
      "id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,down_cost_s,batch_size,"
      "max_batch_size,allowed_sizes\n";
  const auto batch = parse_jobs(hb + "a,0,m,2,8,100,1,1,128,4096,2-8:2\n", "jobs.csv");
  EXPECT_EQ(batch[0].allowed_sizes, (std::vector<int>{2, 4, 6, 8}));
  EXPECT_EQ(batch[0].batch->tuned, 128);
  expect_errors([](const std::string& text) { parse_jobs(text, "jobs.csv"); },
                {
                    {h + "a,0,m,2,8,100,1,1,2-8:0\n", "jobs.csv:2", "allowed_sizes: expected"},
                    {h + "a,0,m,2,8,100,1,1,4-8:4\n", "jobs.csv:2",
                     "allowed_sizes: the allowed node counts must run from MIN (2)"},
                    {h + "a,0,m,2,8,100,1,1,2-16:2\n", "jobs.csv:2",
                     "allowed_sizes: the allowed node counts must run from MIN (2)"},
                });
}

TEST(WorkloadIoJobs, RejectsBadRowsNamingTheLineAndColumn) {
  const std::string h(kJobsHeader);
  const std::string ok = "a,0,m,1,2,100,1,1\n";
  expect_errors(
      [](const std::string& text) { parse_jobs(text, "jobs.csv"); },
      {
          {"", "jobs.csv", "file is empty"},
          {"model,nodes,samples_per_s\n", "jobs.csv:1",
           "expected the header line \"id,submit_s,model,min_nodes,max_nodes,"
           "work_samples,up_cost_s,down_cost_s\", got \"model,nodes,samples_per_s\""},
          {h + ok + "b,0,m,1,2,100,1\n", "jobs.csv:3", "expected 8 columns, got 7"},
          {h + ok + ok, "jobs.csv:3", "id: \"a\" is already used on line 2"},
          {h + ",0,m,1,2,100,1,1\n", "jobs.csv:2", "id: expected a non-empty value"},
          {h + "a,-1,m,1,2,100,1,1\n", "jobs.csv:2",
           "submit_s: expected a finite number >= 0 and at most 1e10, got \"-1\""},
          {h + "a,1e11,m,1,2,100,1,1\n", "jobs.csv:2",
           "submit_s: expected a finite number >= 0 and at most 1e10, got \"1e11\""},
          {h + "a,inf,m,1,2,100,1,1\n", "jobs.csv:2", "submit_s: expected a finite"},
          {h + "a,0,,1,2,100,1,1\n", "jobs.csv:2", "model: expected a non-empty value"},
          {h + "\n\na,0,m,x,2,100,1,1\n", "jobs.csv:4",
           "min_nodes: expected an integer >= 1, got \"x\""},
          {h + "a,0,m,0,2,100,1,1\n", "jobs.csv:2",
           "min_nodes: expected an integer >= 1, got \"0\""},
          {h + "a,0,m,1.5,2,100,1,1\n", "jobs.csv:2", "min_nodes: expected an integer"},
          {h + "a,0,m,4,2,100,1,1\n", "jobs.csv:2",
           "max_nodes: expected an integer >= min_nodes (4), got \"2\""},
          {h + "a,0,m,1,2,0,1,1\n", "jobs.csv:2",
           "work_samples: expected a finite number > 0, got \"0\""},
          {h + "a,0,m,1,2,100,-1,1\n", "jobs.csv:2",
           "up_cost_s: expected a finite number >= 0 and at most 315360000 (ten years), "
           "got \"-1\""},
          {h + "a,0,m,1,2,100,1, 1x \n", "jobs.csv:2",
           "down_cost_s: expected a finite number >= 0 and at most 315360000 (ten "
           "years), got \"1x\""},
          // The bounds `gaptrain solve` and the plugin apply.
          {h + "a,0,m,1,2,100,1e9,1\n", "jobs.csv:2",
           "up_cost_s: expected a finite number >= 0 and at most 315360000"},
          {h + "a,0,m,1,2,100,1,1e308\n", "jobs.csv:2",
           "down_cost_s: expected a finite number >= 0 and at most 315360000"},
          {h + "a,0,m,1,2,1e24,1,1\n", "jobs.csv:2", "work_samples: expected at most 3.1536e+23"},
      });
}

// ---- Curves ---------------------------------------------------------------------------------

TEST(WorkloadIoCurves, ParsesTheMeasuredCurves) {
  const std::string path = shared_data("models/curves.csv");
  const CurveTable curves = parse_curves(read_input_file(path), path);
  ASSERT_EQ(curves.size(), 3u);
  for (const char* model : {"resnet18", "shufflenet", "vgg16"}) {
    ASSERT_TRUE(curves.contains(model)) << model;
    EXPECT_EQ(curves.at(model).curve.points().size(), 7u) << model;
    EXPECT_TRUE(curves.at(model).by_type.empty()) << model;
  }
  EXPECT_EQ(curves.at("vgg16").curve.at(1), 1193.3);
  EXPECT_EQ(curves.at("vgg16").curve.at(64), 70151.7);
  EXPECT_EQ(curves.at("shufflenet").curve.at(16), 38895.3);
}

TEST(WorkloadIoCurves, SortsEachModelsPointsByNodeCount) {
  const CurveTable curves = parse_curves(
      "model,nodes,samples_per_s\r\nm,4,40\r\nn,1,5\r\n\r\nm,1,10\r\nm,2,20\r\n", "c.csv");
  ASSERT_EQ(curves.size(), 2u);
  const std::vector<ScalingCurve::Point>& points = curves.at("m").curve.points();
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].nodes, 1);
  EXPECT_EQ(points[1].nodes, 2);
  EXPECT_EQ(points[2].nodes, 4);
  EXPECT_EQ(points[2].samples_per_s, 40.0);
  EXPECT_EQ(curves.at("m").curve.at(3), 30.0);
  EXPECT_EQ(curves.at("n").curve.at(1), 5.0);
}

TEST(WorkloadIoCurves, RejectsBadRowsNamingTheLine) {
  const std::string h = "model,nodes,samples_per_s\n";
  expect_errors([](const std::string& text) { parse_curves(text, "curves.csv"); },
                {
                    {"", "curves.csv", "file is empty"},
                    {h, "curves.csv", "no curve points"},
                    {"model,nodes\n", "curves.csv:1",
                     "expected the header line \"model,nodes,samples_per_s\""},
                    {h + "m,1,10\nm,2,20\nn,1,5\nm,1,11\n", "curves.csv:5",
                     "nodes: \"m\" already has a point at 1 nodes"},
                    {h + "m,0,10\n", "curves.csv:2", "nodes: expected an integer >= 1, got \"0\""},
                    {h + "m,two,10\n", "curves.csv:2", "nodes: expected an integer >= 1"},
                    {h + "m,1,-5\n", "curves.csv:2",
                     "samples_per_s must be a finite number > 0 and at most 1e15, got -5"},
                    {h + "m,1,nan\n", "curves.csv:2", "samples_per_s: expected a finite number"},
                    {h + ",1,10\n", "curves.csv:2", "model: expected a non-empty value"},
                    {h + "m,1,10,3\n", "curves.csv:2", "expected 3 columns, got 4"},
                });
}

TEST(WorkloadIoCurves, ATypeColumnGivesAModelACurvePerType) {
  const CurveTable curves = parse_curves(
      "model,nodes,samples_per_s,type\n"
      "bert,1,100,a100\n"
      "bert,4,380,a100\n"
      "bert,1,50,v100\n"
      "bert,2,100,v100\n"
      "mlp,1,10,\n"  // no type: the same curve on every type
      "mlp,2,20,\n",
      "curves.csv");
  ASSERT_EQ(curves.size(), 2u);
  const ModelCurves& bert = curves.at("bert");
  ASSERT_EQ(bert.by_type.size(), 2u);
  EXPECT_EQ(bert.by_type.at("a100").at(4), 380.0);
  EXPECT_EQ(bert.by_type.at("v100").at(2), 100.0);
  // One curve for the model: the slowest type's at each count either was measured at.
  EXPECT_EQ(bert.curve.points(),
            (std::vector<ScalingCurve::Point>{{1, 50.0}, {2, 100.0}, {4, 100.0}}));
  EXPECT_TRUE(curves.at("mlp").by_type.empty());
  EXPECT_EQ(curves.at("mlp").curve.at(2), 20.0);
}

TEST(WorkloadIoCurves, RejectsTypedRowsNamingTheLine) {
  const std::string h = "model,nodes,samples_per_s,type\n";
  expect_errors([](const std::string& text) { parse_curves(text, "curves.csv"); },
                {
                    {h + "m,1,10,a100\nm,2,20,\n", "curves.csv:3",
                     "type: \"m\" has rows with a type (line 2); give a type on every row of a "
                     "model (its curve per type) or on none"},
                    {h + "m,1,10,\nm,2,20,a100\n", "curves.csv:3",
                     "type: \"m\" has rows without a type (line 2)"},
                    {h + "m,1,10,a100\nm,1,5,v100\nm,1,11,a100\n", "curves.csv:4",
                     "nodes: \"m\" on type \"a100\" already has a point at 1 nodes"},
                    {h + "m,1,10\n", "curves.csv:2", "expected 4 columns, got 3"},
                    {"model,nodes,samples_per_s,kind\n", "curves.csv:1",
                     "expected the header line \"model,nodes,samples_per_s\", got "
                     "\"model,nodes,samples_per_s,kind\" (curves per node type end with ,type)"},
                });
}

// ---- Node types -----------------------------------------------------------------------------

TEST(WorkloadIoNodeTypes, ParsesOneTypePerNode) {
  const std::vector<NodeTypeRow> rows =
      parse_node_types("node,type\nn001,a100\n\n \"n002\" , v100\n", "types.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].node, "n001");
  EXPECT_EQ(rows[0].type, "a100");
  EXPECT_EQ(rows[0].line, 2u);
  EXPECT_EQ(rows[1].node, "n002");
  EXPECT_EQ(rows[1].type, "v100");
  EXPECT_EQ(rows[1].line, 4u);
}

TEST(WorkloadIoNodeTypes, RejectsBadRowsNamingTheLine) {
  const std::string h = "node,type\n";
  expect_errors([](const std::string& text) { parse_node_types(text, "types.csv"); },
                {
                    {"", "types.csv", "file is empty; expected the header line \"node,type\""},
                    {"n1,a100\n", "types.csv:1", "expected the header line \"node,type\""},
                    {h + "n1,a100\nn1,v100\n", "types.csv:3",
                     "node: \"n1\" is typed on line 2 already; a node has one type"},
                    {h + "n1,\n", "types.csv:2", "type: expected a type name, got \"\""},
                    {h + ",a100\n", "types.csv:2", "node: expected a node name, got \"\""},
                    {h + "n1,a100,x\n", "types.csv:2", "expected 2 columns, got 3"},
                });
}

// ---- Models known ---------------------------------------------------------------------------

TEST(WorkloadIoModelsKnown, NamesTheFirstJobWithoutACurve) {
  const CurveTable curves = parse_curves(
      "model,nodes,samples_per_s\nvgg16,1,1\nresnet18,1,1\nshufflenet,1,1\n", "curves.csv");
  const std::vector<JobRow> jobs = parse_jobs(std::string(kJobsHeader) +
                                                  "a,0,vgg16,1,1,1,0,0\n"
                                                  "b,0,foo,1,1,1,0,0\n"
                                                  "c,0,bar,1,1,1,0,0\n",
                                              "jobs.csv");
  EXPECT_NO_THROW(check_models_known({jobs[0]}, curves, "jobs.csv"));
  const InputError error = input_error_from([&] { check_models_known(jobs, curves, "jobs.csv"); });
  EXPECT_EQ(error.field(), "jobs.csv:3");
  EXPECT_THAT(error.what(), HasSubstr("model: no curve for \"foo\" in the curves file "
                                      "(known: \"resnet18\", \"shufflenet\", \"vgg16\")"));
}

TEST(WorkloadIoModelsKnown, AcceptsTheExampleFiles) {
  const std::string jobs_path = shared_data("models/jobs-example.csv");
  const std::string curves_path = shared_data("models/curves.csv");
  EXPECT_NO_THROW(check_models_known(parse_jobs(read_input_file(jobs_path), jobs_path),
                                     parse_curves(read_input_file(curves_path), curves_path),
                                     jobs_path));
}

// ---- Errors ---------------------------------------------------------------------------------

TEST(WorkloadIoErrors, QuoteAtMostABoundedPrefixOfTheInput) {
  const std::string huge(10 << 20, 'k');
  const std::string h(kJobsHeader);
  const auto message = [](auto parse) { return std::string(input_error_from(parse).what()); };
  const std::vector<std::string> messages = {
      message([&] { parse_node_events("10,n1," + huge + "\n", "events.csv"); }),
      message([&] { parse_node_events(huge + ",n1,idle\n", "events.csv"); }),
      message([&] { parse_node_events("10,\"" + huge + "\n", "events.csv"); }),
      message([&] { parse_jobs(huge + "\n", "jobs.csv"); }),
      message([&] { parse_jobs(h + "a,0,m,1,2," + huge + ",0,0\n", "jobs.csv"); }),
      message([&] { parse_curves("model,nodes,samples_per_s\nm," + huge + ",1\n", "c.csv"); }),
      message([&] {
        const std::vector<JobRow> jobs =
            parse_jobs(h + "a,0," + huge + ",1,2,100,0,0\n", "jobs.csv");
        check_models_known(jobs, parse_curves("model,nodes,samples_per_s\nm,1,1\n", "c.csv"),
                           "jobs.csv");
      }),
      message([&] {
        std::string curves = "model,nodes,samples_per_s\n";
        for (int i = 0; i < 1000; ++i)
          curves += huge.substr(0, 1000) + std::to_string(i) + ",1,1\n";
        check_models_known(parse_jobs(h + "a,0,m,1,2,100,0,0\n", "jobs.csv"),
                           parse_curves(curves, "c.csv"), "jobs.csv");
      }),
  };
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::string& text = messages[i];
    EXPECT_LT(text.size(), 1000U) << text.substr(0, 2000);
    if (i == 2) continue;  // an unterminated quote is named by where it opens
    EXPECT_THAT(text, HasSubstr("\"" + std::string(60, 'k') + "...\"")) << text.substr(0, 2000);
  }
  EXPECT_THAT(messages[6], HasSubstr("model: no curve for \"kkk"));
  EXPECT_THAT(messages[7], HasSubstr(", and 990 more)"));
}

TEST(WorkloadIoErrors, QuotedValuesAreCutAtACharacterAndShowOtherBytesEscaped) {
  const auto error_for = [](const std::string& state) {
    return std::string(
        input_error_from([&] { parse_node_events("10,n1," + state + "\n", "e.csv"); }).what());
  };
  // 59 ASCII bytes, then a 2-byte character that would pass the 60-byte bound: not cut in two.
  EXPECT_THAT(error_for(std::string(59, 's') + "\u00e9tat"),
              HasSubstr("got \"" + std::string(59, 's') + "...\""));
  EXPECT_THAT(error_for("b\x01sy\x7f"), HasSubstr("got \"b\\x01sy\\x7f\""));
  EXPECT_THAT(error_for("\u00e9tat"), HasSubstr("got \"\u00e9tat\""));
}

}  // namespace
}  // namespace gaptrain::sim::workload_io_test
