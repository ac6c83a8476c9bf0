#include "core/elastic_jobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gaptrain/scaling_curve.hpp"
#include "support/alice_jobs.hpp"

namespace gaptrain::core::elastic_jobs_test {
namespace {

using testing::alice_registration;
using testing::alice_running_job;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr double kMono = 5'000.0;  // the monotonic clock: seconds since boot

// A running satellite `id` of job `owner` (its user's, named after it) on `node`.
Job satellite_of(std::uint32_t owner, std::uint32_t id, const std::string& node,
                 const std::string& partition = "elastic") {
  Job satellite = alice_running_job(id);
  satellite.name = satellite_name(owner);
  satellite.partition = partition;
  satellite.nodes = {node};
  return satellite;
}

TEST(ElasticJobs, WithoutCurveTheCurveAndCostsAreAssumed) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  const ElasticJob& e = jobs.jobs().at(5);
  EXPECT_EQ(e.curve_source, Source::assumed);
  EXPECT_EQ(e.costs_source, Source::assumed);
  EXPECT_EQ(e.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(e.batch_host, "n1");
  EXPECT_EQ(e.uid, 1001U);
  ASSERT_EQ(e.curve.points().size(), 3U);  // 1, 2, 4
  EXPECT_EQ(e.curve.points().front(), (ScalingCurve::Point{1, 1.0}));
  EXPECT_EQ(e.curve.points().back().nodes, 4);
  EXPECT_DOUBLE_EQ(e.curve.at(4), std::pow(4.0, 0.8));  // the prior's n^0.8
  EXPECT_DOUBLE_EQ(e.up_cost_s, 30.0);
}

TEST(ElasticJobs, GivenCurveAndCostsAreKept) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  protocol::JobRegistration r = alice_registration(5);
  r.curve = ScalingCurve({{1, 100.0}, {2, 190.0}});
  r.up_cost_s = 18.0;
  r.down_cost_s = 12.0;
  ASSERT_FALSE(jobs.add(r, &job, "elastic", kNow));
  const ElasticJob& e = jobs.jobs().at(5);
  EXPECT_EQ(e.curve_source, Source::given);
  EXPECT_EQ(e.costs_source, Source::given);
  EXPECT_EQ(e.curve, *r.curve);
  EXPECT_DOUBLE_EQ(e.down_cost_s, 12.0);
}

TEST(ElasticJobs, RefusesJobsThatDoNotRunOrBadBounds) {
  ElasticJobs jobs;
  EXPECT_NE(jobs.add(alice_registration(5), nullptr, "elastic", kNow)->find("not known"),
            std::string::npos);
  Job job = alice_running_job(5);
  job.state = JobState::pending;
  EXPECT_NE(jobs.add(alice_registration(5), &job, "elastic", kNow)->find("pending"),
            std::string::npos);
  job.state = JobState::running;
  protocol::JobRegistration r = alice_registration(5);
  r.min_nodes = 3;
  r.max_nodes = 2;
  EXPECT_TRUE(jobs.add(r, &job, "elastic", kNow));
  r = alice_registration(5);
  r.up_cost_s = -1.0;
  EXPECT_NE(jobs.add(r, &job, "elastic", kNow)->find("up_cost_s"), std::string::npos);
  EXPECT_TRUE(jobs.jobs().empty());
}

TEST(ElasticJobs, AJobOfAnyElasticPartitionIsManagedAndOthersAreToldWhere) {
  ElasticJobs jobs;
  Job job = alice_running_job(5);
  job.partition = "cpu";
  const std::optional<std::string> refused = jobs.add(alice_registration(5), &job, "gpu", kNow);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("submit with -p gpu"), std::string::npos) << *refused;
  EXPECT_FALSE(jobs.add(alice_registration(5), &job, "gpu,cpu", kNow));
  job.partition = "regular";
  const std::optional<std::string> outside = jobs.add(alice_registration(6), &job, "gpu,cpu", kNow);
  ASSERT_TRUE(outside);
  EXPECT_NE(outside->find("elastic partitions gpu,cpu"), std::string::npos) << *outside;
}

TEST(ElasticJobs, FollowSlurmAndForgetEndedJobs) {
  ElasticJobs jobs;
  const Job five = alice_running_job(5);
  const Job six = alice_running_job(6);
  ASSERT_FALSE(jobs.add(alice_registration(5), &five, "elastic", kNow));
  ASSERT_FALSE(jobs.add(alice_registration(6), &six, "elastic", kNow));
  Snapshot s;
  s.taken_at = kNow + 10;
  s.jobs.push_back(alice_running_job(5));
  s.jobs.back().nodes = {"n1", "n2", "n3"};  // grown
  s.jobs.push_back(alice_running_job(6));
  s.jobs.back().state = JobState::finished;
  EXPECT_EQ(jobs.refresh(s, 0.0).forgotten, (std::vector<std::uint32_t>{6}));
  EXPECT_EQ(jobs.jobs().at(5).nodes.size(), 3U);
  s.jobs.clear();  // purged from slurmctld
  EXPECT_EQ(jobs.refresh(s, 0.0).forgotten, (std::vector<std::uint32_t>{5}));
  EXPECT_TRUE(jobs.jobs().empty());
}

TEST(ElasticJobs, SatellitesAreTheJobsNodesAfterItsOwnBatchHostFirst) {
  ElasticJobs jobs;
  Job job = alice_running_job(5);
  job.nodes = {"n1", "n2"};
  job.batch_host = "n2";
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  EXPECT_EQ(jobs.jobs().at(5).nodes, (std::vector<std::string>{"n2", "n1"}));
  Snapshot s;
  s.jobs.push_back(job);
  const Job satellite = satellite_of(5, 9, "n4");
  s.jobs.push_back(satellite);
  Job ended = satellite;  // a released satellite still listed by Slurm
  ended.id = 10;
  ended.nodes = {"n3"};
  ended.state = JobState::finished;
  s.jobs.push_back(ended);
  jobs.refresh(s, 0.0);
  EXPECT_EQ(jobs.jobs().at(5).nodes, (std::vector<std::string>{"n2", "n1", "n4"}));
  EXPECT_EQ(jobs.jobs().at(5).satellites, (std::map<std::string, std::uint32_t>{{"n4", 9}}));
}

// A satellite Slurm preempted for a regular job (satellite_qos) is reported as such, and the
// job's stall from then on is learned as a shrink's; one that ended otherwise (cancelled by
// hand, its lease run out) is only gone.
TEST(ElasticJobs, ASatelliteSlurmPreemptedIsReportedAndItsStallLearned) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  Snapshot s;
  s.jobs.push_back(job);
  for (const auto& [id, node] : {std::pair{9U, "n3"}, {10U, "n4"}}) {
    s.jobs.push_back(satellite_of(5, id, node));
  }
  EXPECT_TRUE(jobs.refresh(s, 10.0).preempted.empty());
  ASSERT_EQ(jobs.jobs().at(5).satellites.size(), 2U);
  for (Job& satellite : s.jobs) {
    if (satellite.id == 5) continue;
    satellite.state = JobState::finished;
    satellite.nodes.clear();
    satellite.preempted = satellite.id == 9;  // 10 was cancelled by hand
  }
  const Refreshed refreshed = jobs.refresh(s, 20.0);
  EXPECT_EQ(refreshed.preempted, (std::map<std::uint32_t, std::vector<std::string>>{{5, {"n3"}}}));
  EXPECT_TRUE(refreshed.forgotten.empty());
  const ElasticJob& e = jobs.jobs().at(5);
  EXPECT_EQ(e.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_TRUE(e.satellites.empty());
  EXPECT_FALSE(e.stalled_by_grow);
  EXPECT_EQ(e.stalled_since_mono_s, std::optional<double>(20.0));
  // Seen once: the next poll reports nothing more.
  EXPECT_TRUE(jobs.refresh(s, 30.0).preempted.empty());
}

// A job named "gaptrain:5" is job 5's satellite only when it is job 5's user's and in its
// partition: another user's job of that name is not merged into job 5 (its node would be given
// to job 5's launcher), nor is a job of the same user in another partition.
TEST(ElasticJobs, JobsNamedAfterAJobButNotItsSatellitesAreNotItsNodes) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  Snapshot s;
  s.jobs.push_back(job);
  s.jobs.push_back(satellite_of(5, 9, "n3"));
  Job other_user = satellite_of(5, 10, "n4");
  other_user.user_id = 1002;
  s.jobs.push_back(other_user);
  s.jobs.push_back(satellite_of(5, 11, "n5", "regular"));
  jobs.refresh(s, 0.0);
  EXPECT_EQ(jobs.jobs().at(5).nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(jobs.jobs().at(5).satellites, (std::map<std::string, std::uint32_t>{{"n3", 9}}));
}

// With a satellite partition (satellite_partition), satellites there are the job's too; a job of
// the same name and user in a third partition still is not.
TEST(ElasticJobs, SatellitesInTheSatellitePartitionAreTheJobsNodes) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  Snapshot s;
  s.jobs.push_back(job);
  s.jobs.push_back(satellite_of(5, 9, "n3", "satellites"));
  s.jobs.push_back(satellite_of(5, 11, "n5", "regular"));
  jobs.refresh(s, 0.0);
  EXPECT_TRUE(jobs.jobs().at(5).satellites.empty());  // no satellite partition configured
  jobs.refresh(s, 0.0, "satellites");
  EXPECT_EQ(jobs.jobs().at(5).nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(jobs.jobs().at(5).satellites, (std::map<std::string, std::uint32_t>{{"n3", 9}}));
}

// Only jobs of the elastic partition are managed: a regular-tier job that registers would be
// grown into the holes and shrunk for nobody.
TEST(ElasticJobs, AJobOutsideTheElasticPartitionIsRefused) {
  ElasticJobs jobs;
  Job job = alice_running_job(5);
  job.partition = "regular";
  const auto refused = jobs.add(alice_registration(5), &job, "elastic", kNow);
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "job 5 runs in partition regular: only jobs of the elastic partition elastic are "
            "managed (submit with -p elastic)");
  EXPECT_FALSE(jobs.contains(5));
}

TEST(ElasticJobs, AJobAskingForItsGpusAsAJobTotalIsRefused) {
  ElasticJobs jobs;
  Job job = alice_running_job(5);
  job.tres_per_job = "gres/gpu:8";
  const auto refused = jobs.add(alice_registration(5), &job, "elastic", kNow);
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "job 5 asks for its GPUs as a job total (gres/gpu:8): a node it grows into would get "
            "none; ask for them per node (--gpus-per-node or --gres=gpu:N)");
  EXPECT_FALSE(jobs.contains(5));

  job.tres_per_node = "gres/gpu:4";  // per node as well: every new node gets 4
  EXPECT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
}

// The launcher's report of a job running a step on `nodes` with `samples` done.
protocol::LauncherReport progress(std::uint32_t id, std::vector<std::string> nodes,
                                  double samples) {
  protocol::LauncherReport r;
  r.job_id = id;
  r.running = std::move(nodes);
  r.samples_done = samples;
  return r;
}

TEST(ElasticJobs, ABatchRangeIsKeptAndItsNoiseScaleGivenAssumedOrLearned) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  EXPECT_FALSE(jobs.jobs().at(5).given.batch);
  EXPECT_FALSE(noise_scale_of(jobs.jobs().at(5))) << "no batch range: valued by throughput";

  protocol::JobRegistration r = alice_registration(5);
  r.batch = BatchRange{128, 4096, 256};
  ASSERT_FALSE(jobs.add(r, &job, "elastic", kNow));
  const ElasticJob& e = jobs.jobs().at(5);
  ASSERT_TRUE(e.given.batch);
  EXPECT_EQ(e.given.batch->max, 4096);
  // Not given, not learned yet: phi = M0, the cautious assumption.
  ASSERT_TRUE(noise_scale_of(e));
  EXPECT_EQ(noise_scale_of(e)->value, 128.0);
  EXPECT_EQ(noise_scale_of(e)->source, Source::assumed);

  // Reports without statistics, or with statistics that are no estimate, change nothing.
  protocol::LauncherReport report = progress(5, {"n1", "n2"}, 100.0);
  ASSERT_TRUE(jobs.report(report, kNow + 1, kMono + 1));
  report.grad_sqr = 0.0;
  report.grad_var = 1.0;
  ASSERT_TRUE(jobs.report(report, kNow + 2, kMono + 2));
  EXPECT_EQ(noise_scale_of(e)->source, Source::assumed);

  // grad_sqr, grad_var (normalised to M0): phi = M0 * var / sqr.
  report.grad_sqr = 0.5;
  report.grad_var = 2.0;
  ASSERT_TRUE(jobs.report(report, kNow + 3, kMono + 3));
  EXPECT_EQ(noise_scale_of(e)->source, Source::learned);
  EXPECT_DOUBLE_EQ(noise_scale_of(e)->value, 512.0);
  report.grad_sqr = std::nullopt;  // half a pair teaches nothing either
  ASSERT_TRUE(jobs.report(report, kNow + 4, kMono + 4));
  EXPECT_DOUBLE_EQ(noise_scale_of(e)->value, 512.0);
  // An estimate drifting by less than a fifth leaves the value the job is valued and told its
  // batch at: own ratio 128 * 2.4 / 0.5 = 614, smoothed to about 532.
  report.grad_sqr = 0.5;
  report.grad_var = 2.4;
  ASSERT_TRUE(jobs.report(report, kNow + 4, kMono + 4));
  EXPECT_DOUBLE_EQ(noise_scale_of(e)->value, 512.0);
  // Beyond a fifth it moves: own ratio 128 * 8 / 0.5 = 2048, smoothed well past 614.
  report.grad_var = 8.0;
  ASSERT_TRUE(jobs.report(report, kNow + 4, kMono + 4));
  EXPECT_GT(noise_scale_of(e)->value, 512.0 * 1.2);

  // A given noise scale is kept, whatever the reports say.
  r.noise_scale = 900.0;
  ASSERT_FALSE(jobs.add(r, &job, "elastic", kNow));
  report.grad_sqr = 1.0;
  ASSERT_TRUE(jobs.report(report, kNow + 5, kMono + 5));
  EXPECT_EQ(noise_scale_of(jobs.jobs().at(5))->value, 900.0);
  EXPECT_EQ(noise_scale_of(jobs.jobs().at(5))->source, Source::given);
}

TEST(ElasticJobs, AssumedCurveAndCostsAreLearnedFromProgress) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);  // n1, n2
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  // Not steady yet: only n1 runs a step.
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 0), kNow, kMono));
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 500), kNow + 20, kMono + 20));
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::assumed);
  // Steady on 2 nodes: 100 samples/s over 20 s.
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1000), kNow + 30, kMono + 30));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 3000), kNow + 50, kMono + 50));
  const ElasticJob& learned = jobs.jobs().at(5);
  EXPECT_EQ(learned.curve_source, Source::learned);
  EXPECT_NEAR(learned.curve.at(2), 100.0, 1e-6);
  EXPECT_EQ(learned.costs_source, Source::assumed);

  // A grow to 3 nodes stalls the training for 12 s: that is the up cost now.
  jobs.resized(5, {"n1", "n2", "n3"}, {{"n3", 9}}, kMono + 60);
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2", "n3"}, 3000), kNow + 65, kMono + 65));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2", "n3"}, 3100), kNow + 72, kMono + 72));
  EXPECT_EQ(jobs.jobs().at(5).costs_source, Source::learned);
  EXPECT_DOUBLE_EQ(jobs.jobs().at(5).up_cost_s, 12.0);
}

// Node types: a job that gave no curve and asked for two types learns each type's
// curve from the progress made there; the other type is taken as fast until it runs there.
// Given per-type curves are kept; a type given without one is learned.
TEST(ElasticJobs, ACurveIsLearnedPerNodeType) {
  ElasticJobs jobs;
  Snapshot s;
  s.nodes = {{.name = "n1", .type = "a100"},
             {.name = "n2", .type = "a100"},
             {.name = "n3", .type = "v100"}};
  s.jobs = {alice_running_job(5)};  // n1, n2
  s.jobs[0].features = "[a100|v100]";
  ASSERT_FALSE(jobs.add(alice_registration(5), &s.jobs[0], "elastic", kNow));
  jobs.refresh(s, kMono);
  const ElasticJob& job = jobs.jobs().at(5);
  EXPECT_EQ(job.held_type, "a100");
  ASSERT_EQ(job.curves.size(), 2U);
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1000), kNow + 30, kMono + 30));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 3000), kNow + 50, kMono + 50));
  EXPECT_EQ(job.curves.at("a100").source, Source::learned);
  EXPECT_NEAR(job.curves.at("a100").curve.at(2), 100.0, 1e-6);
  EXPECT_EQ(job.curves.at("v100").source, Source::assumed);
  EXPECT_NEAR(job.curves.at("v100").curve.at(2), 100.0, 1e-6);

  // Without a constraint naming types: one curve for every type.
  ElasticJobs untyped;
  s.jobs[0].features = "";
  ASSERT_FALSE(untyped.add(alice_registration(5), &s.jobs[0], "elastic", kNow));
  untyped.refresh(s, kMono);
  EXPECT_TRUE(untyped.jobs().at(5).curves.empty());

  // A registration's per-type curves: given ones kept, an empty one learned on its type.
  ElasticJobs given;
  protocol::JobRegistration r = alice_registration(5);
  r.curves["a100"] = std::nullopt;
  r.curves["v100"] = ScalingCurve({{1, 40.0}, {4, 150.0}});
  ASSERT_FALSE(given.add(r, &s.jobs[0], "elastic", kNow));
  given.refresh(s, kMono);
  ASSERT_TRUE(given.report(progress(5, {"n1", "n2"}, 1000), kNow + 30, kMono + 30));
  ASSERT_TRUE(given.report(progress(5, {"n1", "n2"}, 2000), kNow + 50, kMono + 50));
  const ElasticJob& mixed = given.jobs().at(5);
  EXPECT_EQ(mixed.curves.at("a100").source, Source::learned);
  EXPECT_NEAR(mixed.curves.at("a100").curve.at(2), 50.0, 1e-6);
  EXPECT_EQ(mixed.curves.at("v100").source, Source::given);
  EXPECT_NEAR(mixed.curves.at("v100").curve.at(4), 150.0, 1e-6);
}

// A reclaim's shrink and the grow back half a second later, before any report showed
// progress: the shrink's stall ends where the grow begins, so both costs are learned (the
// shrink's was dropped, and stayed assumed, before).
TEST(ElasticJobs, AStallCutShortByTheNextResizeIsLearnedUpToIt) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);  // n1, n2
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1000), kNow, kMono));
  jobs.resized(5, {"n1"}, {}, kMono + 10);
  jobs.resized(5, {"n1", "n2"}, {{"n2", 9}}, kMono + 10.5);
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1000), kNow + 12, kMono + 12));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1100), kNow + 14, kMono + 14));
  const ElasticJob& learned = jobs.jobs().at(5);
  EXPECT_EQ(learned.costs_source, Source::learned);
  EXPECT_DOUBLE_EQ(learned.down_cost_s, 0.5);
  EXPECT_DOUBLE_EQ(learned.up_cost_s, 3.5);
}

// Steps ran on both nodes while the training still ran on one (its world size 1,
// at one node's rate): that progress was learned as 2 nodes' and the 1-node rate never was. The
// training's own world size says which count the progress was made on.
TEST(ElasticJobs, ProgressIsLearnedAtTheTrainingsOwnWorldSize) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);  // n1, n2
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  protocol::LauncherReport one = progress(5, {"n1", "n2"}, 0);
  one.world_size = 1;
  ASSERT_TRUE(jobs.report(one, kNow, kMono));
  one.samples_done = 2000.0;  // 100 samples/s on the one node the training uses
  ASSERT_TRUE(jobs.report(one, kNow + 20, kMono + 20));
  const ElasticJob& learned = jobs.jobs().at(5);
  ASSERT_EQ(learned.curve_source, Source::learned);
  ASSERT_TRUE(learned.learner);
  EXPECT_EQ(learned.learner->measured_rates(), (std::map<int, double>{{1, 100.0}}));
  EXPECT_DOUBLE_EQ(learned.curve.at(1), 100.0);
}

// The bundled PyTorch example writes progress only at checkpoints: 10 s without new samples
// once made a learned 1-node rate of 0, on which the speedup objective threw and gaptraind
// exited. No progress is "not learned yet": the assumed curve stays.
TEST(ElasticJobs, FlatProgressKeepsTheAssumedCurve) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);  // n1, n2
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  const ScalingCurve assumed = jobs.jobs().at(5).curve;
  for (int s = 0; s <= 60; s += 5) {
    ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1000), kNow + s, kMono + s));
  }
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::assumed);
  EXPECT_EQ(jobs.jobs().at(5).curve, assumed);
  // A checkpoint's progress then is learned as usual.
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 3000), kNow + 80, kMono + 80));
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::learned);
  EXPECT_GT(jobs.jobs().at(5).curve.at(1), 0.0);
}

// Windows are timed on the monotonic clock: the wall clock stepped back an hour mid-window
// (NTP, an admin) neither loses the measurement nor makes it negative.
TEST(ElasticJobs, LearningIgnoresWallClockSteps) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 0), kNow, kMono));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 2000), kNow - 3600 + 20, kMono + 20));
  const ElasticJob& learned = jobs.jobs().at(5);
  ASSERT_EQ(learned.curve_source, Source::learned);
  const std::vector<ScalingCurve::Point>& points = learned.curve.points();
  const auto at_two =
      std::find_if(points.begin(), points.end(),
                   [](const ScalingCurve::Point& point) { return point.nodes == 2; });
  ASSERT_NE(at_two, points.end());
  EXPECT_NEAR(at_two->samples_per_s, 100.0, 1e-9);  // 2000 samples in 20 s
}

// A probe re-registered a job submitted --elastic=1-2 as 1-4, and reported 1e300 samples: a
// registration may narrow the range it registered with, never widen it, and progress faster
// than any node can go teaches nothing.
TEST(ElasticJobs, AReRegistrationCannotWidenTheRange) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  protocol::JobRegistration first = alice_registration(5);
  first.max_nodes = 2;
  ASSERT_FALSE(jobs.add(first, &job, "elastic", kNow));
  protocol::JobRegistration wider = alice_registration(5);  // 1-4
  const auto refused = jobs.add(wider, &job, "elastic", kNow);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("registered for 1-2 nodes"), std::string::npos) << *refused;
  EXPECT_EQ(jobs.jobs().at(5).given.max_nodes, 2);
  EXPECT_FALSE(jobs.add(first, &job, "elastic", kNow));  // the same again: the launcher's way
}

// After a lost state file, what the admission marked in the job's record binds (job_mark.hpp).
TEST(ElasticJobs, ARegistrationCannotGoBeyondTheRangeMarkedAtAdmission) {
  ElasticJobs jobs;
  Job job = alice_running_job(5);
  job.admin_comment = "gaptrain:limit=0,nodes=1-2";
  const auto refused = jobs.add(alice_registration(5), &job, "elastic", kNow);  // 1-4
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("submitted with 1-2 nodes"), std::string::npos) << *refused;
  protocol::JobRegistration within = alice_registration(5);
  within.max_nodes = 2;
  EXPECT_FALSE(jobs.add(within, &job, "elastic", kNow));
}

TEST(ElasticJobs, ProgressFasterThanAnyNodeTeachesNothing) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);  // n1, n2
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  const ScalingCurve assumed = jobs.jobs().at(5).curve;
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 0), kNow, kMono));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 1e17), kNow + 20, kMono + 20));
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::assumed);
  EXPECT_EQ(jobs.jobs().at(5).curve, assumed);
}

// A saved learned curve replaces the assumed one. (One whose 1-node rate is 0 was never
// learned: no ScalingCurve holds it, and the state file's decoder drops it, state_file_test.)
TEST(ElasticJobs, RestoringALearnedCurveReplacesTheAssumedOne) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  jobs.restore_learned(5, std::nullopt, std::nullopt);
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::assumed);
  jobs.restore_learned(5, ScalingCurve({{1, 50.0}, {2, 90.0}}), std::nullopt);
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::learned);
  EXPECT_DOUBLE_EQ(jobs.jobs().at(5).curve.at(2), 90.0);
}

TEST(ElasticJobs, GivenCurvesAreNotReplaced) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  protocol::JobRegistration r = alice_registration(5);
  r.curve = ScalingCurve({{1, 10.0}, {4, 35.0}});
  r.up_cost_s = 5.0;
  r.down_cost_s = 4.0;
  ASSERT_FALSE(jobs.add(r, &job, "elastic", kNow));
  EXPECT_FALSE(jobs.jobs().at(5).learner);
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 0), kNow, kMono));
  ASSERT_TRUE(jobs.report(progress(5, {"n1", "n2"}, 5000), kNow + 20, kMono + 20));
  EXPECT_EQ(jobs.jobs().at(5).curve, r.curve);
}

// A pending job's minimum node count is read from its requested TRES: Slurm reports its guess
// of the count for a job it tried to place (a parked -N 1-4 job showed 4-4 on 22.05).
TEST(Cluster, TheRequestedNodeCountIsReadFromTheTres) {
  EXPECT_EQ(requested_node_count("cpu=1,mem=1M,node=1,billing=1"), 1U);
  EXPECT_EQ(requested_node_count("node=12"), 12U);
  EXPECT_EQ(requested_node_count("cpu=4,mem=2M,node=2"), 2U);
  EXPECT_FALSE(requested_node_count(""));
  EXPECT_FALSE(requested_node_count("cpu=1,mem=1M"));
  EXPECT_FALSE(requested_node_count("cpu=1,node=x"));
  EXPECT_FALSE(requested_node_count("cpu=1,node=0"));
  EXPECT_FALSE(requested_node_count("gres/node=2"));
}

TEST(ElasticJobs, SatelliteNamesNameTheirJob) {
  EXPECT_EQ(satellite_name(42), "gaptrain:42");
  EXPECT_EQ(satellite_owner("gaptrain:42"), 42U);
  EXPECT_FALSE(satellite_owner("gaptrain:"));
  EXPECT_FALSE(satellite_owner("gaptrain:4x"));
  EXPECT_FALSE(satellite_owner("gaptrain:0"));
  EXPECT_FALSE(satellite_owner("wrap"));
}

TEST(ElasticJobs, LauncherReportsRecordProgress) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  EXPECT_FALSE(jobs.report({5, {"n1"}, {}, 10.0, {}, {}, {}, {}}, kNow, kMono));  // not registered
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  EXPECT_FALSE(jobs.jobs().at(5).reported_at);
  ASSERT_TRUE(jobs.report({5, {"n1", "n2"}, {}, 10.0, {}, {}, {}, {}}, kNow + 1, kMono + 1));
  const ElasticJob& e = jobs.jobs().at(5);
  EXPECT_EQ(e.samples_done, 10.0);
  EXPECT_EQ(e.reported_at, kNow + 1);
  EXPECT_EQ(e.running, (std::vector<std::string>{"n1", "n2"}));
  // A report without progress keeps the last value but moves reported_at; acks are kept.
  ASSERT_TRUE(jobs.report({5, {"n1"}, {"n2"}, std::nullopt, {}, {}, {}, {}}, kNow + 2, kMono + 2));
  EXPECT_EQ(e.samples_done, 10.0);
  EXPECT_EQ(e.reported_at, kNow + 2);
  EXPECT_EQ(e.drained, (std::vector<std::string>{"n2"}));
}

// Fake progress (another user's file read as the job's) showed 2e12 samples in `gaptrain job`.
TEST(ElasticJobs, ProgressThatGoesBackOrOutrunsTheNodesIsRefused) {
  ElasticJobs jobs;
  const Job job = alice_running_job(5);
  ASSERT_FALSE(jobs.add(alice_registration(5), &job, "elastic", kNow));
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 100.0), kNow, kMono));
  const ElasticJob& e = jobs.jobs().at(5);
  const double most = static_cast<double>(e.nodes.size()) * 1e9 * (1.0 + 1.0);  // 1 s + slack
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 2e12), kNow + 1, kMono + 1));
  EXPECT_EQ(e.samples_done, 100.0) << "faster than " << e.nodes.size() << " node(s) can train";
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 50.0), kNow + 1, kMono + 1));
  EXPECT_EQ(e.samples_done, 100.0) << "below the last";
  EXPECT_EQ(e.progress_refused, 2U);
  ASSERT_TRUE(jobs.report(progress(5, {"n1"}, 100.0 + most), kNow + 1, kMono + 1));
  EXPECT_EQ(e.samples_done, 100.0 + most) << "as fast as the nodes can: taken";
}

}  // namespace
}  // namespace gaptrain::core::elastic_jobs_test
