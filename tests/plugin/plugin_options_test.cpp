#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "option_parsing.hpp"

namespace gaptrain::plugin::plugin_options_test {
namespace {

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const OptionError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(PluginOptionsTest, ParsesCosts) {
  const Costs c = parse_costs("18:12.5");
  EXPECT_EQ(c.up_s, 18.0);
  EXPECT_EQ(c.down_s, 12.5);
  EXPECT_EQ(parse_costs("0:0").up_s, 0.0);
  EXPECT_EQ(parse_costs(" 3 : 4 ").down_s, 4.0);
}

TEST(PluginOptionsTest, RejectsBadCostsWithOneClearLine) {
  EXPECT_EQ(error_of([] { parse_costs("x"); }),
            "--elastic-cost: expected UP:DOWN seconds (non-negative numbers), got \"x\"");
  for (const char* bad :
       {"", ":", "1:", ":2", "1:2:3", "-1:2", "1:-2", "nan:1", "inf:1", "1;2", "a:b", "+1:2"}) {
    EXPECT_NE(error_of([&] { parse_costs(bad); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ParsesTheNoticeAndRefusesBadOnesWithOneClearLine) {
  EXPECT_EQ(parse_notice("30"), 30.0);
  EXPECT_EQ(parse_notice("0"), 0.0);
  EXPECT_EQ(parse_notice("86400"), 86400.0);
  EXPECT_EQ(parse_notice(" 2.5 "), 2.5);
  EXPECT_EQ(error_of([] { parse_notice("soon"); }),
            "--elastic-notice: expected seconds from 0 to 86400 (a day), got \"soon\"");
  for (const char* bad : {"", "-1", "86401", "nan", "inf", "+5", "1e300", "30s"}) {
    EXPECT_NE(error_of([&] { parse_notice(bad); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ParsesTheBatchRangeAndRefusesBadOnesSayingWhatToWrite) {
  const BatchRange two = parse_batch_range("128:4096");
  EXPECT_EQ(two.tuned, 128);
  EXPECT_EQ(two.max, 4096);
  EXPECT_EQ(two.max_per_node, 0);
  const BatchRange three = parse_batch_range(" 64:64:32");
  EXPECT_EQ(three.tuned, 64);
  EXPECT_EQ(three.max, 64);
  EXPECT_EQ(three.max_per_node, 32);
  EXPECT_EQ(error_of([] { parse_batch_range("big"); }),
            "--elastic-batch: expected M0:MAX or M0:MAX:PERNODE, whole numbers of samples with 1 "
            "<= M0 <= MAX and PERNODE >= 1 (e.g. 128:4096:256), got \"big\"");
  EXPECT_EQ(error_of([] { parse_batch_range("256:128"); }),
            "--elastic-batch: the largest batch MAX must be from M0 (256) to 1000000000 samples, "
            "got 128 (write M0:MAX[:PERNODE], e.g. 128:4096:256)");
  for (const char* bad : {"", "128", "0:8", "-1:8", "8:4", "8:16:0", "8:16:-2", "8:16:4:2",
                          "8.5:16", "8:16:", ":16", "+8:16", "8:2000000000", "8:1e3"}) {
    EXPECT_NE(error_of([&] { parse_batch_range(bad); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ParsesTheNoiseScaleAndRefusesBadOnes) {
  EXPECT_EQ(parse_noise_scale("900"), 900.0);
  EXPECT_EQ(parse_noise_scale("0"), 0.0);
  EXPECT_EQ(parse_noise_scale("2.5e4"), 25000.0);
  EXPECT_EQ(error_of([] { parse_noise_scale("high"); }),
            "--elastic-noise-scale: expected the gradient noise scale in samples at M0, a number "
            "from 0 to 1e15 (leave it out to have it learned), got \"high\"");
  for (const char* bad : {"", "-1", "nan", "inf", "1e16", "+5", "900s"}) {
    EXPECT_NE(error_of([&] { parse_noise_scale(bad); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ParsesNodeRanges) {
  EXPECT_EQ(parse_node_range("2-8").min, 2);
  EXPECT_EQ(parse_node_range("2-8").max, 8);
  EXPECT_EQ(parse_node_range("4").min, 4);
  EXPECT_EQ(parse_node_range("4").max, 4);
  for (const char* bad : {"", "0", "0-2", "3-2", "-2", "2-", "a-b", "1-2-3", "1.5-2"}) {
    EXPECT_NE(error_of([&] { parse_node_range(bad); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ParsesAllowedSizesAsSbatchArraysAreSpelled) {
  EXPECT_EQ(parse_node_range("2-8:2").allowed, (std::vector<int>{2, 4, 6, 8}));
  EXPECT_EQ(parse_node_range("1,2,4,8").allowed, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(parse_node_range("1,2,4,8").max, 8);
  EXPECT_TRUE(parse_node_range("2-8").allowed.empty());
  EXPECT_NE(error_of([] { parse_node_range("2-8:0"); }).find("MIN-MAX:STEP"), std::string::npos);
  EXPECT_NE(error_of([] { parse_node_range("2-4000:2"); }).find("list fewer"), std::string::npos);
}

// A node count beyond any cluster (--elastic=1-2000000000 once made the daemon's tables and
// loops run away) is refused at submission with one line saying what to give instead.
TEST(PluginOptionsTest, RefusesNodeRangesBeyondAnyCluster) {
  EXPECT_EQ(error_of([] { parse_node_range("1-2000000000"); }),
            "--elastic: MAX 2000000000 is more nodes than any cluster has (at most 100000): give "
            "at most the elastic partition's node count");
  EXPECT_EQ(parse_node_range("1-100000").max, 100000);
  EXPECT_NE(error_of([] { parse_costs("1e300:1"); }), "<no error>");
  EXPECT_NE(error_of([] { parse_curve_csv("2000000000,5\n", "c.csv"); }), "<no error>");
  EXPECT_NE(error_of([] { parse_curve_csv("1,1e300\n", "c.csv"); }), "<no error>");
}

TEST(PluginOptionsTest, ParsesCurveCsvWithHeaderAndComments) {
  const Curve c =
      parse_curve_csv("# measured on A100 nodes\nnodes,samples_per_s\n1,100\n\n2, 190.5\r\n4,350\n",
                      "f.csv")
          .at("");
  ASSERT_EQ(c.size(), 3U);
  EXPECT_EQ(c[1], (ScalingCurve::Point{2, 190.5}));
  EXPECT_EQ(parse_curve_csv("1,1e3", "f").at("").front().samples_per_s, 1000.0);
}

// A type column gives a curve per node type, each type's points in order.
TEST(PluginOptionsTest, ParsesACurvePerNodeType) {
  const TypedCurves c = parse_curve_csv(
      "type,nodes,samples_per_s\na100,1,200\nv100,1,90\na100,2,390\nv100, 2, 170\n", "t.csv");
  ASSERT_EQ(c.size(), 2U);
  EXPECT_EQ(c.at("a100"), (Curve{{1, 200.0}, {2, 390.0}}));
  EXPECT_EQ(c.at("v100"), (Curve{{1, 90.0}, {2, 170.0}}));
  EXPECT_EQ(curves_from_compact(curves_to_compact(c)), c);
  EXPECT_EQ(curves_to_compact(c), "a100=1:200,2:390;v100=1:90,2:170");
  // One untyped curve travels as before.
  const TypedCurves one = parse_curve_csv("1,100\n2,190\n", "u.csv");
  EXPECT_EQ(curves_to_compact(one), "1:100,2:190");
  EXPECT_EQ(curves_from_compact("1:100,2:190"), one);
  EXPECT_EQ(error_of([] { parse_curve_csv("a100,1,200\n2,390\n", "t.csv"); }),
            "--elastic-curve: t.csv line 2: expected \"type,nodes,samples_per_s\" as on the lines "
            "before, got \"2,390\"");
  EXPECT_EQ(error_of([] { parse_curve_csv("a100,2,200\na100,1,390\n", "t.csv"); }),
            "--elastic-curve: t.csv line 2: node counts must increase, got 1 after 2");
  EXPECT_NE(error_of([] { parse_curve_csv("a 100,1,200\n", "t.csv"); }), "<no error>");
  EXPECT_NE(error_of([] { curves_from_compact("a100=1:2;a100=1:3"); }), "<no error>");
  EXPECT_NE(error_of([] { curves_from_compact("=1:2"); }), "<no error>");
}

TEST(PluginOptionsTest, RejectsBadCurvesNamingFileAndLine) {
  EXPECT_EQ(error_of([] { parse_curve_csv("1,100\n1,190\n", "c.csv"); }),
            "--elastic-curve: c.csv line 2: node counts must increase, got 1 after 1");
  EXPECT_EQ(error_of([] { parse_curve_csv("1,100\nnodes,rate\n", "c.csv"); }),
            "--elastic-curve: c.csv line 2: expected \"nodes,samples_per_s\", got "
            "\"nodes,rate\"");
  EXPECT_EQ(error_of([] { parse_curve_csv("# only a comment\n", "c.csv"); }),
            "--elastic-curve: c.csv has no \"nodes,samples_per_s\" lines");
  for (const char* bad : {"0,5", "1,0", "1,-3", "1,nan", "1,2,3", "1", "x,1\n1,2\ny,2", "-1,5"}) {
    EXPECT_NE(error_of([&] { parse_curve_csv(bad, "c.csv"); }), "<no error>") << bad;
  }
}

TEST(PluginOptionsTest, ReadsCurveFiles) {
  char path[] = "/tmp/gaptrain-curve-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << "nodes,samples_per_s\n1,100\n2,190\n";
  EXPECT_EQ(read_curve_file(path).at("").size(), 2U);
  std::remove(path);
  EXPECT_NE(error_of([&] { read_curve_file(path); }).find("cannot read"), std::string::npos);
}

// `sbatch --elastic-curve=FIFO` waited forever for a writer; a device is no curve
// either. Both are refused at once, saying what the path is.
TEST(PluginOptionsTest, RefusesCurveFilesThatAreNotRegularFiles) {
  char dir[] = "/tmp/gaptrain-curve-dir-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/curve.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_curve_file(fifo); }),
            "--elastic-curve: cannot read \"" + fifo +
                "\": it is a named pipe (FIFO), not a regular file");
  EXPECT_EQ(error_of([&] { read_curve_file("/dev/zero"); }),
            "--elastic-curve: cannot read \"/dev/zero\": it is a character device, not a regular "
            "file");
  EXPECT_EQ(error_of([&] { read_curve_file(dir); }),
            "--elastic-curve: cannot read \"" + std::string(dir) +
                "\": it is a directory, not a regular file");
  std::remove(fifo.c_str());
  ::rmdir(dir);
}

TEST(PluginOptionsTest, CompactCurveRoundTripsExactly) {
  const Curve c = {{1, 100.0}, {2, 1.0 / 3.0}, {16, 1e-300}};
  const std::string compact = curve_to_compact(c);
  EXPECT_EQ(compact.find_first_of(" \n="), std::string::npos) << compact;
  EXPECT_EQ(curve_from_compact(compact), c);
  EXPECT_EQ(curve_to_compact({{1, 100.0}, {2, 190.0}}), "1:100,2:190");
  EXPECT_TRUE(curve_from_compact("").empty());
  EXPECT_NE(error_of([] { curve_from_compact("1:5,1:6"); }), "<no error>");
  EXPECT_NE(error_of([] { curve_from_compact("1-5"); }), "<no error>");
}

}  // namespace
}  // namespace gaptrain::plugin::plugin_options_test
