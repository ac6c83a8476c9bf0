#include "state_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gaptrain/input_error.hpp"

namespace gaptrain::daemon {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

Job running_job(std::uint32_t id) {
  Job job;
  job.id = id;
  job.user_id = 1001;
  job.user = "alice";
  job.partition = "elastic";
  job.state = JobState::running;
  job.nodes = {"n1", "n2"};
  job.batch_host = "n1";
  return job;
}

protocol::JobRegistration registration(std::uint32_t id) {
  protocol::JobRegistration r;
  r.job_id = id;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 4;
  return r;
}

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
  ElasticJobs jobs;
  const Job given = running_job(5);
  protocol::JobRegistration with_curve = registration(5);
  with_curve.curve = {{1, 10.0}, {4, 37.5}};
  with_curve.up_cost_s = 12.0;
  with_curve.down_cost_s = 3.0;
  ASSERT_FALSE(jobs.add(with_curve, &given, "elastic", kNow));
  const Job learning = running_job(6);
  ASSERT_FALSE(jobs.add(registration(6), &learning, "elastic", kNow + 7));
  jobs.restore_learned(6, std::vector<std::pair<int, double>>{{1, 1.0}, {4, 3.3333333333333335}},
                       std::pair{17.25, 4.5});

  DaemonState state;
  for (const auto& [id, job] : jobs.jobs()) state.jobs.push_back(saved_job(job));
  state.user_limits = {{5, 0}, {6, 120}, {9, 30}};
  const DaemonState back = decode_state(encode_state(state));
  EXPECT_EQ(back, state);

  // What the daemon rebuilds from it is the job as it was.
  ElasticJobs restored;
  for (const SavedJob& saved : back.jobs) {
    const Job job = running_job(saved.registration.job_id);
    ASSERT_FALSE(restored.add(saved.registration, &job, "elastic", saved.registered_at));
    restored.restore_learned(saved.registration.job_id, saved.learned_curve, saved.learned_costs);
  }
  for (const std::uint32_t id : {5U, 6U}) {
    const ElasticJob& before = jobs.jobs().at(id);
    const ElasticJob& after = restored.jobs().at(id);
    EXPECT_EQ(after.curve, before.curve) << id;
    EXPECT_EQ(after.curve_source, before.curve_source) << id;
    EXPECT_EQ(after.costs_source, before.costs_source) << id;
    EXPECT_DOUBLE_EQ(after.up_cost_s, before.up_cost_s) << id;
    EXPECT_DOUBLE_EQ(after.down_cost_s, before.down_cost_s) << id;
    EXPECT_EQ(after.registered_at, before.registered_at) << id;
    EXPECT_EQ(after.min_nodes, before.min_nodes) << id;
    EXPECT_EQ(after.max_nodes, before.max_nodes) << id;
  }
  EXPECT_EQ(restored.jobs().at(6).curve_source, Source::learned);
  EXPECT_EQ(restored.jobs().at(5).curve_source, Source::given);
}

TEST(StateFile, ABadFileNamesTheField) {
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
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[{"uid":1,"registered_at":0}],"user_limits":{}})"),
            "jobs[0].registration");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[],"user_limits":{"x":3}})"), "user_limits.x");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[],"user_limits":{"7":-3}})"), "user_limits.7");
  EXPECT_EQ(field_of(R"({"version":1,"jobs":[],"user_limits":{}})"), "(accepted)");
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

}  // namespace
}  // namespace gaptrain::daemon
