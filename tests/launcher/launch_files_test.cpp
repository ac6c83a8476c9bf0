#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "launcher/hostfile.hpp"
#include "launcher/job_file.hpp"
#include "launcher/progress.hpp"

namespace gaptrain::launch {
namespace {

// samples_done of the last complete line, as the tests below ask it.
std::optional<double> last_samples_done(std::string_view text) {
  const std::optional<Progress> progress = last_progress(text);
  return progress ? std::optional<double>(progress->samples_done) : std::nullopt;
}

std::optional<double> read_samples_done(const std::string& path) {
  const std::optional<Progress> progress = read_progress(path);
  return progress ? std::optional<double>(progress->samples_done) : std::nullopt;
}

TEST(LaunchProgress, TakesTheHelpersTimeAndWorldSizeWhenUsable) {
  const auto full = last_progress(R"({"time":1764300000.5,"samples_done":64,"world_size":3,)"
                                  R"("leaves_on_job_file":true})"
                                  "\n");
  ASSERT_TRUE(full);
  EXPECT_TRUE(full->leaves_on_job_file);
  EXPECT_EQ(full->samples_done, 64.0);
  EXPECT_EQ(full->time, 1764300000.5);
  EXPECT_EQ(full->world_size, 3);
  // Unusable extras are left out; the samples still count.
  const auto odd = last_progress(R"({"time":"now","samples_done":64,"world_size":0})"
                                 "\n");
  ASSERT_TRUE(odd);
  EXPECT_FALSE(odd->time);
  EXPECT_FALSE(odd->world_size);
  const auto bare = last_progress("{\"samples_done\":1}\n");
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->time);
  EXPECT_FALSE(bare->leaves_on_job_file);
  EXPECT_FALSE(bare->grad_sqr);
  EXPECT_FALSE(bare->grad_var);
}

TEST(LaunchProgress, TakesTheGradientStatisticsWhenUsable) {
  const auto both = last_progress(R"({"samples_done":64,"grad_sqr":0.25,"grad_var":1.5e-2})"
                                  "\n");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->grad_sqr, 0.25);
  EXPECT_EQ(both->grad_var, 1.5e-2);
  // Each is checked alone; a bad one is left out, the line still counts.
  const auto odd = last_progress(R"({"samples_done":64,"grad_sqr":-1,"grad_var":"x"})"
                                 "\n");
  ASSERT_TRUE(odd);
  EXPECT_FALSE(odd->grad_sqr);
  EXPECT_FALSE(odd->grad_var);
  EXPECT_EQ(odd->samples_done, 64.0);
  const auto zero = last_progress(R"({"samples_done":1,"grad_sqr":0,"grad_var":0})"
                                  "\n");
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->grad_sqr, 0.0) << "passed on: gaptraind decides it teaches nothing";
}

TEST(LaunchProgress, TakesTheLastCompleteLine) {
  EXPECT_EQ(last_samples_done("{\"samples_done\":10}\n{\"samples_done\":25.5,\"loss\":1}\n"), 25.5);
  // A line still being appended is not read; the one before it counts.
  EXPECT_EQ(last_samples_done("{\"samples_done\":10}\n{\"samples_do"), 10.0);
  EXPECT_EQ(last_samples_done("{\"samples_done\":10}\n\n  \n"), 10.0);
}

TEST(LaunchProgress, NothingUsableIsEmpty) {
  EXPECT_FALSE(last_samples_done(""));
  EXPECT_FALSE(last_samples_done("{\"samples_done\":10}"));  // no complete line yet
  EXPECT_FALSE(last_samples_done("not json\n"));
  EXPECT_FALSE(last_samples_done("{\"step\":3}\n"));
  EXPECT_FALSE(last_samples_done("{\"samples_done\":\"12\"}\n"));
  EXPECT_FALSE(last_samples_done("{\"samples_done\":-1}\n"));
  EXPECT_FALSE(last_samples_done("[1]\n"));
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/gaptrain-launch-test-" +
         std::to_string(getpid()) + "-" + name;
}

TEST(LaunchProgress, ReadsTheFilesTail) {
  const std::string path = temp_path("progress.jsonl");
  EXPECT_FALSE(read_samples_done(path));  // not written yet
  {
    std::ofstream out(path);
    // More than the 64 KiB tail, so the read starts mid-line.
    for (int i = 0; i < 5000; ++i) out << "{\"samples_done\":" << i << ",\"pad\":\"xxxx\"}\n";
  }
  EXPECT_EQ(read_samples_done(path), 4999.0);
  std::remove(path.c_str());
}

// Issue 27: a named pipe at the progress path would block the launcher's poll on open(), for
// good if nothing ever writes it. It is no progress file: no value, at once.
TEST(LaunchProgress, ANamedPipeIsNoProgressFile) {
  const std::string path = temp_path("progress.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(read_samples_done(path));
  std::remove(path.c_str());
}

TEST(LaunchHostfile, OneNodePerLineReplacedAtomically) {
  EXPECT_EQ(hostfile_text({"n2", "n1"}), "n2\nn1\n");
  const std::string path = temp_path("hosts");
  write_hostfile(path, {"n1", "n2"});
  write_hostfile(path, {"n1", "n2", "n3"});
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "n1\nn2\nn3\n");
  std::remove(path.c_str());
  EXPECT_THROW(write_hostfile("/nonexistent-dir/hosts", {"n1"}), std::system_error);
}

TEST(LaunchHostfile, DefaultsToTheWorkingDirElseTmp) {
  EXPECT_EQ(default_hostfile_path("/tmp", "/scratch", "42"), "/tmp/gaptrain-hosts.42");
  EXPECT_EQ(default_hostfile_path("/nonexistent-dir", "/scratch", "42"),
            "/scratch/gaptrain-hosts.42");
  EXPECT_EQ(default_hostfile_path("", "", "7"), "/tmp/gaptrain-hosts.7");
}

TEST(LaunchJobFile, CarriesWhatTheWorkersFollow) {
  JobFileView view;
  view.job_id = 42;
  view.generation = 3;
  view.nodes = {"n1", "n2"};
  view.leaving = {"n3"};
  view.notice = {{"n2", 1764300060.5}};
  view.min_nodes = 1;
  view.max_nodes = 4;
  EXPECT_EQ(job_file_text(view),
            R"({"generation":3,"job_id":42,"leaving":["n3"],"max_nodes":4,"min_nodes":1,)"
            R"("nodes":["n1","n2"],"notice":{"n2":1764300060.5}})"
            "\n");
  JobFileView same = view;
  same.generation = 4;
  EXPECT_TRUE(view.same_content(same));
  same.notice.clear();
  EXPECT_FALSE(view.same_content(same));
}

TEST(LaunchJobFile, CarriesTheBatchToTrainAt) {
  JobFileView view;
  view.job_id = 42;
  view.generation = 1;
  view.nodes = {"n1", "n2", "n3"};
  view.batch = protocol::InstructedBatch{128, 1536, 256, 2, 2.75};
  EXPECT_EQ(
      job_file_text(view),
      R"({"batch":{"accumulation":2,"global":1536,"lr_gain":2.75,"per_node":256,"tuned":128},)"
      R"("generation":1,"job_id":42,"leaving":[],"max_nodes":1,"min_nodes":1,)"
      R"("nodes":["n1","n2","n3"],"notice":{}})"
      "\n");
  JobFileView regrown = view;
  regrown.batch->global = 2048;
  regrown.batch->per_node = 256;
  EXPECT_FALSE(view.same_content(regrown)) << "a new batch is a change the workers follow";
  regrown.batch.reset();
  EXPECT_FALSE(view.same_content(regrown));
}

TEST(LaunchJobFile, BesideTheHostFile) {
  EXPECT_EQ(beside("/shared/run/gaptrain-hosts.7", "gaptrain-job.7.json"),
            "/shared/run/gaptrain-job.7.json");
  EXPECT_EQ(beside("gaptrain-hosts.7", "gaptrain-job.7.json"), "gaptrain-job.7.json");
}

}  // namespace
}  // namespace gaptrain::launch
