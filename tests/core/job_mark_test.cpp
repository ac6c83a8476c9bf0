// The mark gaptraind keeps in a job's AdminComment (core/job_mark.hpp): what it reads back is
// what it wrote, whatever else the site keeps there, and an admission keeps the first mark.
#include "core/job_mark.hpp"

#include <gtest/gtest.h>

namespace gaptrain::core::job_mark_test {
namespace {

TEST(JobMark, WhatIsWrittenIsReadBack) {
  const JobMark mark{.time_limit_minutes = 525600, .min_nodes = 1, .max_nodes = 2};
  EXPECT_EQ(with_job_mark("", mark), "gaptrain:limit=525600,nodes=1-2");
  EXPECT_EQ(read_job_mark(with_job_mark("", mark)), mark);
  const JobMark unlimited{.time_limit_minutes = 0, .min_nodes = 2, .max_nodes = 4};
  EXPECT_EQ(read_job_mark(with_job_mark("", unlimited)), unlimited);
}

TEST(JobMark, TheSitesOwnWordsAreKept) {
  const JobMark mark{.time_limit_minutes = 30, .min_nodes = 1, .max_nodes = 8};
  const std::string comment = with_job_mark("billing:proj42 audited", mark);
  EXPECT_EQ(comment, "billing:proj42 audited gaptrain:limit=30,nodes=1-8");
  EXPECT_EQ(read_job_mark(comment), mark);
  // A new mark replaces the old one and nothing else.
  const JobMark later{.time_limit_minutes = 60, .min_nodes = 1, .max_nodes = 8};
  EXPECT_EQ(with_job_mark(comment, later), "billing:proj42 audited gaptrain:limit=60,nodes=1-8");
  EXPECT_EQ(with_job_mark(comment, JobMark{}), "billing:proj42 audited");
}

TEST(JobMark, WhatDoesNotReadIsNoMark) {
  EXPECT_EQ(read_job_mark(""), JobMark{});
  EXPECT_EQ(read_job_mark("limit=5 nodes=1-2"), JobMark{});  // not gaptrain's word
  EXPECT_EQ(read_job_mark("gaptrain:limit=-5,nodes=3-1"), JobMark{});
  EXPECT_EQ(read_job_mark("gaptrain:limit=1e9,nodes=0-4"), JobMark{});
  EXPECT_EQ(read_job_mark("gaptrain:nodes=2-4").max_nodes, 4U);
}

TEST(JobMark, AnAdmissionMarksWhatTheJobWasSubmittedWith) {
  Job job;
  job.time_limit_minutes = 0;  // submitted without --time, partition MaxTime=INFINITE
  job.min_nodes = 1;
  job.max_nodes = 4;
  EXPECT_EQ(admission_mark(job),
            (JobMark{.time_limit_minutes = 0, .min_nodes = 1, .max_nodes = 4}));
  // Requeued and admitted again: its record holds the lease and the last size; the first mark
  // wins.
  job.admin_comment = "gaptrain:limit=0,nodes=1-4";
  job.time_limit_minutes = 5;
  job.min_nodes = job.max_nodes = 2;
  EXPECT_EQ(admission_mark(job),
            (JobMark{.time_limit_minutes = 0, .min_nodes = 1, .max_nodes = 4}));
}

}  // namespace
}  // namespace gaptrain::core::job_mark_test
