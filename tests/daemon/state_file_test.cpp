#include "state_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/holes.hpp"
#include "core/planner.hpp"
#include "gaptrain/input_error.hpp"
#include "state_lock.hpp"
#include "support/alice_jobs.hpp"

namespace gaptrain::daemon::state_file_test {
namespace {

using testing::alice_registration;
using testing::alice_running_job;

constexpr std::int64_t kNow = 1'700'000'000;

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gaptrain-state-XXXXXX");
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

TEST(StateFile, RegistrationsLearnedValuesAndUserLimitsSurviveARoundTrip) {
  core::ElasticJobs jobs;
  const core::Job given = alice_running_job(5);
  protocol::JobRegistration with_curve = alice_registration(5);
  with_curve.curve = ScalingCurve({{1, 10.0}, {4, 37.5}});
  with_curve.up_cost_s = 12.0;
  with_curve.down_cost_s = 3.0;
  with_curve.notice_s = 90.0;
  with_curve.batch = BatchRange{128, 4096, 256};
  with_curve.noise_scale = 900.0;
  with_curve.allowed_sizes = {1, 2, 4};  // alice_registration(5) runs on 1 to 4 nodes
  ASSERT_FALSE(jobs.add(with_curve, &given, "elastic", kNow));
  const core::Job learning = alice_running_job(6);
  protocol::JobRegistration one_cost = alice_registration(6);
  one_cost.up_cost_s = 5.0;  // a cost given alone: the other is learned, this one kept as given
  ASSERT_FALSE(jobs.add(one_cost, &learning, "elastic", kNow + 7));
  jobs.restore_learned(6, ScalingCurve({{1, 1.0}, {4, 3.3333333333333335}}), std::pair{17.25, 4.5});
  const core::Job with_batch = alice_running_job(7);
  protocol::JobRegistration learning_phi = alice_registration(7);
  learning_phi.batch = BatchRange{64, 1024, 0};
  ASSERT_FALSE(jobs.add(learning_phi, &with_batch, "elastic", kNow));
  protocol::LauncherReport stats;
  stats.job_id = 7;
  stats.grad_sqr = 3.0;
  stats.grad_var = 0.1;
  ASSERT_TRUE(jobs.report(stats, kNow + 1, 1.0));

  core::SavedState state;
  for (const auto& [id, job] : jobs.jobs()) state.jobs.push_back(saved_job(job));
  state.user_limits = {{5, 0}, {6, 120}, {9, 30}};
  const DecodedState decoded = decode_state(encode_state(state));
  EXPECT_TRUE(decoded.dropped.empty());
  const core::SavedState& back = decoded.state;
  EXPECT_EQ(back, state);

  // What the daemon rebuilds from it is the job as it was.
  core::ElasticJobs restored;
  for (const core::SavedJob& saved : back.jobs) {
    const core::Job job = alice_running_job(saved.registration.job_id);
    ASSERT_FALSE(restored.add(saved.registration, &job, "elastic", saved.registered_at));
    restored.restore_learned(saved.registration.job_id, saved.learned_curve, saved.learned_costs,
                             saved.learned_noise_scale);
  }
  for (const std::uint32_t id : {5U, 6U, 7U}) {
    const core::ElasticJob& before = jobs.jobs().at(id);
    const core::ElasticJob& after = restored.jobs().at(id);
    EXPECT_EQ(after.curve, before.curve) << id;
    EXPECT_EQ(after.curve_source, before.curve_source) << id;
    EXPECT_EQ(after.costs_source, before.costs_source) << id;
    EXPECT_DOUBLE_EQ(after.up_cost_s, before.up_cost_s) << id;
    EXPECT_DOUBLE_EQ(after.down_cost_s, before.down_cost_s) << id;
    EXPECT_EQ(after.registered_at, before.registered_at) << id;
    EXPECT_EQ(after.given, before.given) << id;  // the registration as given, whole
    EXPECT_EQ(after.learned_noise_scale, before.learned_noise_scale) << id;
  }
  EXPECT_EQ(restored.jobs().at(5).given.batch, (BatchRange{128, 4096, 256}));
  EXPECT_EQ(noise_scale_of(restored.jobs().at(5))->source, core::Source::given);
  EXPECT_FALSE(restored.jobs().at(6).given.batch);
  EXPECT_EQ(noise_scale_of(restored.jobs().at(7))->source, core::Source::learned);
  EXPECT_DOUBLE_EQ(noise_scale_of(restored.jobs().at(7))->value, 64.0 * 0.1 / 3.0);
  EXPECT_EQ(restored.jobs().at(5).given.notice_s, 90.0);
  EXPECT_EQ(restored.jobs().at(5).given.allowed_sizes, (std::vector<int>{1, 2, 4}));
  EXPECT_FALSE(restored.jobs().at(6).given.notice_s);
  EXPECT_EQ(restored.jobs().at(6).curve_source, core::Source::learned);
  EXPECT_EQ(restored.jobs().at(5).curve_source, core::Source::given);
}

// Node types: a job's given per-type curves survive a restart, and a type whose curve
// was being learned is learned again (its entry kept, its curve the prior until then).
TEST(StateFile, PerTypeCurvesSurviveARoundTrip) {
  core::ElasticJobs jobs;
  const core::Job job = alice_running_job(5);
  protocol::JobRegistration typed = alice_registration(5);
  typed.curves["a100"] = ScalingCurve({{1, 200.0}, {4, 780.0}});
  typed.curves["v100"] = std::nullopt;
  ASSERT_FALSE(jobs.add(typed, &job, "elastic", kNow));
  core::SavedState state;
  state.jobs.push_back(saved_job(jobs.jobs().at(5)));
  EXPECT_FALSE(state.jobs[0].registration.curve) << "a typed job saves no single curve";
  const DecodedState decoded = decode_state(encode_state(state));
  EXPECT_TRUE(decoded.dropped.empty());
  EXPECT_EQ(decoded.state.jobs.at(0).registration.curves, typed.curves);
  core::ElasticJobs restored;
  ASSERT_FALSE(restored.add(decoded.state.jobs[0].registration, &job, "elastic", kNow));
  const core::ElasticJob& after = restored.jobs().at(5);
  EXPECT_EQ(after.curves.at("a100").source, core::Source::given);
  EXPECT_EQ(after.curves.at("a100").curve, jobs.jobs().at(5).curves.at("a100").curve);
  EXPECT_TRUE(after.curves.at("v100").learner.has_value());
}

TEST(StateFile, AFileWrittenBeforeBatchRangesStillLoads) {
  // As gaptraind wrote it before goodput: no batch, no noise scale anywhere.
  const DecodedState decoded =
      decode_state(R"({"version":1,"jobs":[{"registration":{"v":1,"type":"register","job_id":5,)"
                   R"("user":"alice","batch_host":"n1","min_nodes":1,"max_nodes":4,"curve":[],)"
                   R"("up_cost_s":null,"down_cost_s":null,"notice_s":30},"uid":1001,)"
                   R"("registered_at":1700000000}],"user_limits":{}})");
  EXPECT_TRUE(decoded.dropped.empty());
  ASSERT_EQ(decoded.state.jobs.size(), 1U);
  EXPECT_FALSE(decoded.state.jobs[0].registration.batch);
  EXPECT_FALSE(decoded.state.jobs[0].learned_noise_scale);
}

TEST(StateFile, PauseAndDrainSurviveARoundTrip) {
  for (const core::Operation operation :
       {core::Operation::running, core::Operation::paused, core::Operation::draining}) {
    core::SavedState state;
    state.operation = operation;
    const DecodedState decoded = decode_state(encode_state(state));
    EXPECT_TRUE(decoded.dropped.empty()) << to_string(operation);
    EXPECT_EQ(decoded.state.operation, operation) << to_string(operation);
  }
}

TEST(StateFile, AFileWrittenBeforePauseWasKeptLoadsAsRunning) {
  const DecodedState decoded = decode_state(R"({"version":1,"jobs":[],"user_limits":{"5":30}})");
  EXPECT_TRUE(decoded.dropped.empty());
  EXPECT_EQ(decoded.state.operation, core::Operation::running);
  EXPECT_EQ(decoded.state.user_limits.at(5), 30U);
}

TEST(StateFile, ABadOperationIsDroppedAsRunningAndTheRestKept) {
  for (const char* bad : {"\"stopped\"", "1", "null"}) {
    const DecodedState decoded = decode_state(
        std::string(R"({"version":1,"jobs":[],"user_limits":{"5":30},"operation":)") + bad + "}");
    EXPECT_EQ(decoded.state.operation, core::Operation::running) << bad;
    EXPECT_EQ(decoded.state.user_limits.at(5), 30U) << bad;
    ASSERT_EQ(decoded.dropped.size(), 1U) << bad;
    EXPECT_EQ(decoded.dropped[0].field, "operation") << bad;
  }
}

TEST(StateFile, ABadLearnedNoiseScaleIsDroppedAndTheJobKept) {
  const std::string job =
      R"({"registration":{"v":1,"type":"register","job_id":5,"user":"alice","batch_host":"n1",)"
      R"("min_nodes":1,"max_nodes":4,"curve":[],"up_cost_s":null,"down_cost_s":null,)"
      R"("batch":{"tuned":64,"max":512,"max_per_node":0}},"uid":1001,)"
      R"("registered_at":1700000000,"learned_noise_scale":)";
  for (const char* bad : {"-3", "\"many\"", "1e300", "null"}) {
    const DecodedState decoded =
        decode_state(R"({"version":1,"jobs":[)" + job + bad + R"(}],"user_limits":{}})");
    ASSERT_EQ(decoded.state.jobs.size(), 1U) << bad;
    EXPECT_FALSE(decoded.state.jobs[0].learned_noise_scale) << bad;
    ASSERT_EQ(decoded.dropped.size(), 1U) << bad;
    EXPECT_EQ(decoded.dropped[0].field, "jobs[0].learned_noise_scale") << bad;
  }
}

TEST(StateFile, AFileThatIsNotAStateNamesTheField) {
  const auto field_of = [](const std::string& json) {
    try {
      decode_state(json);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(field_of("not json"), "");
  EXPECT_EQ(field_of(R"({"version":2,"jobs":[],"user_limits":{}})"), "version");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[],"user_limits":{},"extra":1})"), "extra");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":{},"user_limits":{}})"), "jobs");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[]})"), "user_limits");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[],"user_limits":{}})"), "(accepted)");
  // Larger than any state gaptraind writes: refused before it is parsed.
  EXPECT_EQ(field_of(std::string(kMaxStateFileBytes + 1, ' ')), "");
}

// The entry of a job, as encode_state writes it, with `extra` keys added.
std::string job_entry(std::uint32_t id, const std::string& extra = "") {
  return R"({"registration":{"v":1,"type":"register","job_id":)" + std::to_string(id) +
         R"(,"user":"alice","batch_host":"n1","min_nodes":1,"max_nodes":4,"curve":[],)"
         R"("up_cost_s":null,"down_cost_s":null},"uid":1001,"registered_at":1700000000)" +
         extra + "}";
}

std::string state_with(const std::string& jobs, const std::string& limits = "") {
  return R"({"version":1,"jobs":[)" + jobs + R"(],"user_limits":{)" + limits + "}}";
}

std::vector<std::string> dropped_fields(const DecodedState& decoded) {
  std::vector<std::string> fields;
  for (const DroppedEntry& d : decoded.dropped) fields.push_back(d.field);
  return fields;
}

TEST(StateFile, ABadEntryIsDroppedAndTheRestKept) {
  const DecodedState decoded = decode_state(
      state_with(job_entry(5) + R"(,{"uid":1,"registered_at":0},)" +
                     job_entry(7, R"(,"colour":"red")") + "," + job_entry(8) + "," + job_entry(5) +
                     R"(,{"registration":{"v":1,"type":"status"},)"
                     R"("uid":1,"registered_at":0})",
                 R"("9":30,"x":3,"10":-3,"0":5,"11":0)"));
  ASSERT_EQ(decoded.state.jobs.size(), 2U);
  EXPECT_EQ(decoded.state.jobs[0].registration.job_id, 5U);
  EXPECT_EQ(decoded.state.jobs[1].registration.job_id, 8U);
  EXPECT_EQ(decoded.state.user_limits, (std::map<std::uint32_t, std::uint32_t>{{9, 30}, {11, 0}}));
  EXPECT_EQ(dropped_fields(decoded),
            (std::vector<std::string>{"jobs[1]", "jobs[2]", "jobs[4]", "jobs[5]", "user_limits.0",
                                      "user_limits.10", "user_limits.x"}));
  // Each reason says what is wrong with it, in one line.
  EXPECT_EQ(decoded.dropped[0].reason, "jobs[1].registration: required key is missing");
  EXPECT_EQ(decoded.dropped[3].reason, "jobs[5].registration: not a \"register\" request");
  EXPECT_NE(decoded.dropped[2].reason.find("saved twice"), std::string::npos);
  for (const DroppedEntry& d : decoded.dropped) EXPECT_EQ(d.reason.find('\n'), std::string::npos);
  // The registration's own field is named under the job.
  std::string bad_bounds = job_entry(3);
  bad_bounds.replace(bad_bounds.find(R"("min_nodes":1)"), 13, R"("min_nodes":0)");
  const DecodedState bounds = decode_state(state_with(bad_bounds));
  ASSERT_EQ(bounds.dropped.size(), 1U);
  EXPECT_EQ(bounds.dropped[0].reason, "jobs[0].registration.min_nodes: must be >= 1");
}

// Found by fuzz_state_file: numbers beyond a signed 64-bit integer made jsoncpp throw its own
// LogicError (not an InputError), which ended gaptraind's start.
TEST(StateFile, NumbersBeyondSixtyFourBitsAreBadInputNotACrash) {
  EXPECT_THROW(decode_state(R"({"version":16397105843297379214,"jobs":[],"user_limits":{}})"),
               InputError);
  std::string huge_uid = job_entry(3);
  huge_uid.replace(huge_uid.find(R"("uid":1001)"), 10, R"("uid":18446744073709551615)");
  const DecodedState decoded = decode_state(state_with(huge_uid + "," + job_entry(4)));
  ASSERT_EQ(decoded.state.jobs.size(), 1U);
  EXPECT_EQ(decoded.state.jobs[0].registration.job_id, 4U);
  ASSERT_EQ(decoded.dropped.size(), 1U);
  EXPECT_EQ(decoded.dropped[0].field, "jobs[0]");
}

TEST(StateFile, ACorruptLearnedCurveOrCostIsDroppedAndTheJobKept) {
  const std::vector<std::pair<std::string, std::string>> bad_curves = {
      {R"([[1,0.0],[4,0.0]])", "finite number > 0"},  // would stop every plan
      {R"([[2,0.0],[4,5.0]])", "finite number > 0"},
      {R"([])", "at least one"},
      {R"([[0,1.0]])", "node count must be >= 1"},
      {R"([[1,1.0],[1,2.0]])", "increase"},
      {R"([[4,1.0],[2,2.0]])", "increase"},
      {R"([[1,-1.0]])", "finite number > 0"},
      {R"([[1,"fast"]])", "a number"},
      {R"([[1.5,1.0]])", "whole number"},
      {R"([[2000000,1.0]])", "whole number"},
      {R"([[1,1.0,2.0]])", "[nodes, samples/s]"},
      {R"({"1":1.0})", "an array"},
  };
  for (const auto& [curve, why] : bad_curves) {
    const DecodedState decoded =
        decode_state(state_with(job_entry(6, R"(,"learned_curve":)" + curve +
                                                 R"(,"learned_costs":)"
                                                 R"({"up_s":4,"down_s":2})")));
    ASSERT_EQ(decoded.state.jobs.size(), 1U) << curve;
    EXPECT_FALSE(decoded.state.jobs[0].learned_curve.has_value()) << curve;
    EXPECT_EQ(decoded.state.jobs[0].learned_costs, (std::pair{4.0, 2.0})) << curve;
    ASSERT_EQ(dropped_fields(decoded), std::vector<std::string>{"jobs[0].learned_curve"}) << curve;
    EXPECT_NE(decoded.dropped[0].reason.find(why), std::string::npos)
        << curve << ": " << decoded.dropped[0].reason;
  }
  for (const std::string costs :
       {R"({"up_s":-1,"down_s":2})", R"({"up_s":1})", R"({"up_s":1,"down_s":2,"x":3})", "[1,2]"}) {
    const DecodedState decoded = decode_state(
        state_with(job_entry(6, R"(,"learned_curve":[[1,2.0],[4,5.0]],"learned_costs":)" + costs)));
    ASSERT_EQ(decoded.state.jobs.size(), 1U) << costs;
    EXPECT_FALSE(decoded.state.jobs[0].learned_costs.has_value()) << costs;
    EXPECT_TRUE(decoded.state.jobs[0].learned_curve.has_value()) << costs;
    EXPECT_EQ(dropped_fields(decoded), std::vector<std::string>{"jobs[0].learned_costs"}) << costs;
  }
}

// What the daemon does with a state file at its first poll (Daemon::load_state): restore the
// jobs, then plan. A hand-edited learned curve with no 1-node throughput made every plan throw
// (the speedup objective divides by it), so gaptraind exited at each start.
TEST(StateFile, AHandEditedLearnedCurveDoesNotStopThePlans) {
  const DecodedState decoded =
      decode_state(state_with(job_entry(6, R"(,"learned_curve":[[1,0.0],[2,0.0],[4,0.0]])")));
  core::Snapshot snapshot;
  snapshot.taken_at = kNow;
  for (const std::string name : {"n1", "n2", "n3", "n4"}) {
    const bool held = name == "n1" || name == "n2";
    snapshot.nodes.push_back(
        {name, held ? core::NodeState::allocated : core::NodeState::idle, kNow - 600});
  }
  core::Job job = alice_running_job(6);
  job.start_time = kNow - 60;
  job.end_time = kNow + 3600;
  snapshot.jobs.push_back(job);
  core::ElasticJobs jobs;
  for (const core::SavedJob& saved : decoded.state.jobs) {
    ASSERT_FALSE(jobs.add(saved.registration, &job, "elastic", saved.registered_at));
    jobs.restore_learned(saved.registration.job_id, saved.learned_curve, saved.learned_costs);
  }
  std::vector<core::ElasticJob> elastic;
  for (const auto& [id, e] : jobs.jobs()) elastic.push_back(e);
  ASSERT_EQ(elastic.size(), 1U);
  EXPECT_NE(elastic[0].curve_source, core::Source::learned);
  core::Plan p;
  ASSERT_NO_THROW(p = plan(snapshot, find_holes(snapshot), elastic, kNow, {}));
  ASSERT_TRUE(p.allocation.has_value());
  EXPECT_EQ(p.allocation->call_status, allocator::CallStatus::ok) << p.allocation->message;
}

TEST(StateFile, WritesReplaceTheFileWholeAndPrivately) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  EXPECT_FALSE(read_file_if_exists(path).has_value());
  write_file_atomically(path, "first\n");
  write_file_atomically(path, "second\n");
  EXPECT_EQ(read_file_if_exists(path), "second\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  // A directory that does not exist: an error naming the file, and nothing written.
  EXPECT_THROW(write_file_atomically(dir.file("missing/state.json"), "x"), std::system_error);
}

std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string content_of(const std::string& path) {
  return read_file_if_exists(path).value_or("(missing)");
}

TEST(StateFile, ALinkPlantedAtTheTemporaryNameIsNotFollowed) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  const std::string victim = dir.file("victim");
  std::ofstream(victim) << "not yours\n";
  // The name the temporary file used to have, and a likely guess at any fixed one.
  for (const std::string& name : {path + ".tmp", path + "~", path + ".new"}) {
    std::filesystem::create_symlink(victim, name);
  }
  write_file_atomically(path, "state\n");
  EXPECT_EQ(content_of(victim), "not yours\n");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(content_of(path), "state\n");
  EXPECT_EQ(names_in(dir.file("")),
            (std::vector<std::string>{"state.json", "state.json.new", "state.json.tmp",
                                      "state.json~", "victim"}));
}

TEST(StateFile, AFailedWriteLeavesTheOldStateAndNoTemporaryFile) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  write_file_atomically(path, "old\n");
  // The rename cannot replace a non-empty directory: the last step fails.
  const std::string blocked = dir.file("blocked");
  std::filesystem::create_directories(blocked + "/inside");
  EXPECT_THROW(write_file_atomically(blocked, "new\n"), std::system_error);
  EXPECT_EQ(content_of(path), "old\n");
  EXPECT_EQ(names_in(dir.file("")), (std::vector<std::string>{"blocked", "state.json"}));
}

TEST(StateFile, ReadingStopsPastTheLimit) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  std::ofstream(path) << std::string(1000, 'x');
  EXPECT_EQ(read_file_if_exists(path, 100)->size(), 101U);
  EXPECT_EQ(read_file_if_exists(path, 1000)->size(), 1000U);
}

TEST(StateLock, ASecondHolderIsRefusedWithThePidOfTheFirst) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  {
    const StateLock first(path);
    EXPECT_EQ(first.path(), path + ".lock");
    EXPECT_EQ(content_of(path + ".lock"), std::to_string(::getpid()) + "\n");
    // flock locks belong to the open file: a second open in this process conflicts as a second
    // process would.
    try {
      const StateLock second(path);
      ADD_FAILURE() << "a second lock was granted";
    } catch (const StateFileInUse& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("another gaptraind (pid " + std::to_string(::getpid()) + ")"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find(path), std::string::npos) << message;
    }
  }
  // Released with its holder; the next one takes it.
  EXPECT_NO_THROW(StateLock again(path));
}

TEST(StateLock, ALinkAtTheLockNameIsNotFollowed) {
  const TempDir dir;
  const std::string path = dir.file("state.json");
  std::ofstream(dir.file("victim")) << "not yours\n";
  std::filesystem::create_symlink(dir.file("victim"), path + ".lock");
  EXPECT_THROW(StateLock lock(path), std::system_error);
  EXPECT_EQ(content_of(dir.file("victim")), "not yours\n");
  EXPECT_THROW(StateLock lock(dir.file("missing/state.json")), std::system_error);
}

// A state file another user could plant would restore their jobs at gaptraind's next start.
TEST(StateLock, AStateDirectoryOthersCanWriteIsRefused) {
  const TempDir dir;
  const std::string shared = dir.file("shared");
  std::filesystem::create_directory(shared);
  std::filesystem::permissions(shared, std::filesystem::perms::all);
  EXPECT_THROW(StateLock lock(shared + "/state.json"), UnsafeStateDirectory);
  std::filesystem::permissions(shared,
                               std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
  EXPECT_THROW(StateLock lock(shared + "/state.json"), UnsafeStateDirectory) << "sticky: /tmp";
  const std::string path = dir.file("state.json");
  std::ofstream(path) << "{}\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write |
                                         std::filesystem::perms::others_write);
  EXPECT_THROW(StateLock lock(path), UnsafeStateDirectory);
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_NO_THROW(StateLock lock(path));
  if (::geteuid() != 0) GTEST_SKIP() << "not root: cannot give a file to another user";
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_THROW(StateLock lock(path), UnsafeStateDirectory);
}

}  // namespace
}  // namespace gaptrain::daemon::state_file_test
