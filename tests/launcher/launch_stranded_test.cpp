#include <gtest/gtest.h>

#include "launcher/stranded.hpp"

namespace gaptrain::launch::launch_stranded_test {
namespace {

using std::chrono::seconds;
using Clock = StrandedWatch::Clock;

const Clock::time_point t0{};

std::vector<RunningStep> four_nodes() {
  return {{"n1", t0}, {"n2", t0 + seconds(1)}, {"n3", t0 + seconds(30)}, {"n4", t0 + seconds(31)}};
}

TEST(LaunchStranded, ATrainingOnFewerWorkersThanNodesGetsItsLastStepsStartedAgain) {
  // CI's case: torch went on at world size 2 while the job held 4 nodes.
  StrandedWatch watch(seconds(60), 1, "n1");
  EXPECT_TRUE(watch.check(four_nodes(), 2, 100.0, t0 + seconds(40)).empty());
  EXPECT_TRUE(watch.check(four_nodes(), 2, 500.0, t0 + seconds(90)).empty());  // not yet 60 s
  EXPECT_EQ(watch.check(four_nodes(), 2, 900.0, t0 + seconds(101)),
            (std::vector<std::string>{"n4", "n3"}));
  // Then a whole patience again before anything more.
  EXPECT_TRUE(watch.check(four_nodes(), 2, 950.0, t0 + seconds(102)).empty());
}

TEST(LaunchStranded, NothingWhileTheWorldMatchesStallsOrIsUnknown) {
  StrandedWatch watch(seconds(60), 1, "n1");
  EXPECT_TRUE(watch.check(four_nodes(), 4, 100.0, t0).empty());
  EXPECT_TRUE(watch.check(four_nodes(), std::nullopt, 100.0, t0 + seconds(100)).empty());
  // Stalled training (no new samples): regrouping or starting, not stranded.
  StrandedWatch stalled(seconds(60), 1, "n1");
  EXPECT_TRUE(stalled.check(four_nodes(), 2, 100.0, t0).empty());
  EXPECT_TRUE(stalled.check(four_nodes(), 2, 100.0, t0 + seconds(120)).empty());
  // A match in between starts the count again.
  StrandedWatch healed(seconds(60), 1, "n1");
  EXPECT_TRUE(healed.check(four_nodes(), 2, 100.0, t0).empty());
  EXPECT_TRUE(healed.check(four_nodes(), 4, 200.0, t0 + seconds(30)).empty());
  EXPECT_TRUE(healed.check(four_nodes(), 2, 300.0, t0 + seconds(70)).empty());
}

TEST(LaunchStranded, CountsWorkersPerNodeAndNeverTheBatchHost) {
  StrandedWatch watch(seconds(10), 4, "n4");  // 4 workers a node; the batch host started last
  EXPECT_TRUE(watch.check(four_nodes(), 12, 1.0, t0).empty());
  EXPECT_EQ(watch.check(four_nodes(), 12, 2.0, t0 + seconds(11)), (std::vector<std::string>{"n3"}));
}

}  // namespace
}  // namespace gaptrain::launch::launch_stranded_test
