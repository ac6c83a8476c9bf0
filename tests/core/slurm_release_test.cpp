#include "core/slurm_release.hpp"

#include <gtest/gtest.h>

namespace gaptrain::core::slurm_release_test {
namespace {

TEST(SchedulerParameters, AnOptionIsFoundAloneOrWithAValue) {
  EXPECT_TRUE(has_scheduler_parameter("disable_job_shrink", "disable_job_shrink"));
  EXPECT_TRUE(has_scheduler_parameter("bf_interval=2,disable_job_shrink", "disable_job_shrink"));
  EXPECT_TRUE(has_scheduler_parameter("disable_job_shrink,bf_interval=2", "disable_job_shrink"));
  EXPECT_TRUE(has_scheduler_parameter("bf_interval=2,sched_interval=2", "bf_interval"));
}

TEST(SchedulerParameters, APrefixOrAValueIsNotTheOption) {
  EXPECT_FALSE(has_scheduler_parameter("", "disable_job_shrink"));
  EXPECT_FALSE(has_scheduler_parameter("disable_job_shrinking", "disable_job_shrink"));
  EXPECT_FALSE(has_scheduler_parameter("no_disable_job_shrink", "disable_job_shrink"));
  EXPECT_FALSE(has_scheduler_parameter("bf_interval=disable_job_shrink", "disable_job_shrink"));
}

TEST(SlurmRelease, MajorMinorOfARelease) {
  EXPECT_EQ(major_minor("24.11.5"), "24.11");
  EXPECT_EQ(major_minor("22.05.8"), "22.05");
  EXPECT_EQ(major_minor("25.05"), "25.05");
  EXPECT_EQ(major_minor("unknown"), "unknown");
}

TEST(SlurmBehaviour, DisableJobShrinkStopsShrinksOfOwnNodesAndSaysSo) {
  const SlurmBehaviour b = behaviour_for(
      {"24.11.5", "24.11.5", "permit_job_expansion,disable_job_shrink,bf_interval=2", "", false});
  EXPECT_FALSE(b.shrink_own_nodes);
  ASSERT_EQ(b.notices.size(), 1U);
  EXPECT_NE(b.notices[0].find("disable_job_shrink"), std::string::npos) << b.notices[0];
}

TEST(SlurmBehaviour, TheSameMajorMinorIsSilent) {
  const SlurmBehaviour b = behaviour_for({"24.11.6", "24.11.5", "bf_interval=2", "", false});
  EXPECT_TRUE(b.shrink_own_nodes);
  EXPECT_TRUE(b.notices.empty());
}

TEST(SlurmBehaviour, AnotherReleaseOfSlurmctldAsksForARebuild) {
  const SlurmBehaviour b = behaviour_for({"24.11.5", "22.05.8", "", "", false});
  EXPECT_TRUE(b.shrink_own_nodes);
  ASSERT_EQ(b.notices.size(), 1U);
  EXPECT_NE(b.notices[0].find("rebuild gaptrain against Slurm 24.11"), std::string::npos)
      << b.notices[0];
}

// satellite_qos needs preempt/qos and PreemptMode CANCEL; each missing one is a line saying what
// to set; without a satellite QOS nothing is asked of Slurm.
TEST(SatelliteQos, WhatSlurmLacksToFreeSatellitesItself) {
  SlurmControllerConfig config;
  config.preempt_type = "preempt/none";
  EXPECT_TRUE(satellite_qos_problems(config, "").empty());
  const std::vector<std::string> both = satellite_qos_problems(config, "satellite");
  ASSERT_EQ(both.size(), 2U);
  EXPECT_NE(both[0].find("set PreemptType=preempt/qos"), std::string::npos) << both[0];
  EXPECT_NE(both[1].find("set PreemptMode=CANCEL"), std::string::npos) << both[1];
  config.preempt_type = "preempt/qos";
  EXPECT_EQ(satellite_qos_problems(config, "satellite").size(), 1U);
  config.preempt_mode_cancel = true;
  EXPECT_TRUE(satellite_qos_problems(config, "satellite").empty());
}

// satellite_partition: it must exist, hold the elastic partition's nodes and rank above every
// partition it shares nodes with; each lack is a line saying what to set.
TEST(SatellitePartition, WhatSlurmLacksToAllocateSatellitesPastPendingJobs) {
  std::vector<Partition> partitions{
      {"regular", {"n1", "n2"}, 1}, {"elastic", {"n1", "n2", "n3"}, 1}, {"gpu", {"g1"}, 5}};
  EXPECT_TRUE(satellite_partition_problems(partitions, "", "elastic", "24.11.5").empty());
  const std::vector<std::string> absent =
      satellite_partition_problems(partitions, "satellites", "elastic", "24.11.5");
  ASSERT_EQ(absent.size(), 1U);
  EXPECT_NE(absent[0].find("no such partition"), std::string::npos) << absent[0];
  partitions.push_back({"satellites", {"n1", "n2"}, 1});
  const std::vector<std::string> lacking =
      satellite_partition_problems(partitions, "satellites", "elastic", "24.11.5");
  ASSERT_EQ(lacking.size(), 3U);
  EXPECT_NE(lacking[0].find("(n3)"), std::string::npos) << lacking[0];
  EXPECT_NE(lacking[1].find("partition regular's 1"), std::string::npos) << lacking[1];
  EXPECT_NE(lacking[1].find("set PriorityTier=2"), std::string::npos) << lacking[1];
  EXPECT_NE(lacking[2].find("partition elastic's 1"), std::string::npos) << lacking[2];
  partitions.back() = {"satellites", {"n1", "n2", "n3"}, 2};  // gpu shares no node: its 5 is fine
  EXPECT_TRUE(satellite_partition_problems(partitions, "satellites", "elastic", "24.11.5").empty());
  EXPECT_TRUE(satellite_partition_problems(partitions, "satellites", "elastic", "26.05.5").empty());
  const std::vector<std::string> old =
      satellite_partition_problems(partitions, "satellites", "elastic", "22.05.8");
  ASSERT_EQ(old.size(), 1U);
  EXPECT_NE(old[0].find("by priority alone"), std::string::npos) << old[0];
}

}  // namespace
}  // namespace gaptrain::core::slurm_release_test
