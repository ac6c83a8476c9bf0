#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "launcher/hostfile.hpp"
#include "launcher/job_file.hpp"
#include "launcher/private_files.hpp"
#include "launcher/progress.hpp"
#include "launcher/said_once.hpp"

namespace gaptrain::launch::launch_files_test {
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

// A named pipe at the progress path would block the launcher's poll on open(), for good if
// nothing ever writes it. It is no progress file: refused at once.
TEST(LaunchProgress, ANamedPipeIsNoProgressFile) {
  const std::string path = temp_path("progress.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_THROW(read_samples_done(path), UnsafePath);
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

// ---- Other users kept out of the job's files ------------------------------------------------

constexpr uid_t kNobody = 65534;

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void put_text(const std::string& path, const std::string& text, mode_t mode = 0600) {
  std::ofstream(path, std::ios::trunc) << text;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

// A scratch directory of the test's own (mode 0700), removed with what is in it.
class JobFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = temp_path("files.XXXXXX");
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0); }
  // Whether the test may give files away to uid 65534, as another user would own them.
  static bool can_chown() { return ::geteuid() == 0; }
  std::string at(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

// A link planted at the temporary name the launcher once used (PATH.tmp) made a job write its
// node list into the file the link points to: a checkpoint of the job's own user.
TEST_F(JobFiles, ALinkPlantedAtTheTemporaryNameIsNotWrittenThrough) {
  const std::string victim = at("model.pt");
  put_text(victim, "weights");
  ASSERT_EQ(::symlink(victim.c_str(), at("hosts.tmp").c_str()), 0);
  write_hostfile(at("hosts"), {"n4"});
  EXPECT_EQ(file_text(victim), "weights");
  EXPECT_EQ(file_text(at("hosts")), "n4\n");
  struct stat info {};
  ASSERT_EQ(::lstat(at("hosts.tmp").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode)) << "the planted link is left alone, not reused";
}

TEST_F(JobFiles, ALinkAtTheFinalNameIsReplacedNotFollowed) {
  const std::string victim = at("model.pt");
  put_text(victim, "weights");
  ASSERT_EQ(::symlink(victim.c_str(), at("job.json").c_str()), 0);
  write_atomically(at("job.json"), "{}\n");
  EXPECT_EQ(file_text(victim), "weights");
  struct stat info {};
  ASSERT_EQ(::lstat(at("job.json").c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0077, 0U) << "the job's files are the user's alone";
}

// A file another user left at the final name (an explicit GAPTRAIN_HOSTFILE in a sticky
// directory) is replaced by the job's own, never written into.
TEST_F(JobFiles, AFileOfAnotherOwnerAtTheFinalNameIsNotWrittenInto) {
  if (!can_chown()) GTEST_SKIP() << "not root: cannot give a file to another user";
  const std::string theirs = at("hosts");
  put_text(theirs, "theirs\n", 0666);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::link(theirs.c_str(), at("their-inode").c_str()), 0);
  write_hostfile(theirs, {"n1"});
  EXPECT_EQ(file_text(at("their-inode")), "theirs\n");
  struct stat info {};
  ASSERT_EQ(::lstat(theirs.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, ::geteuid());
  EXPECT_EQ(file_text(theirs), "n1\n");
}

// Another user's pre-created progress file was appended to and read as the job's progress.
TEST_F(JobFiles, AProgressFileNotTheUsersOwnIsNotRead) {
  const std::string open_to_all = at("progress-0666.jsonl");
  put_text(open_to_all, "{\"samples_done\":2e12}\n", 0666);
  EXPECT_THROW(read_progress(open_to_all), UnsafePath);
  const std::string link = at("progress-link.jsonl");
  put_text(at("real.jsonl"), "{\"samples_done\":5}\n");
  ASSERT_EQ(::symlink(at("real.jsonl").c_str(), link.c_str()), 0);
  EXPECT_THROW(read_progress(link), UnsafePath);
  if (!can_chown()) GTEST_SKIP() << "not root: cannot give a file to another user";
  const std::string theirs = at("progress-theirs.jsonl");
  put_text(theirs, "{\"samples_done\":2e12}\n", 0644);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  EXPECT_THROW(read_progress(theirs), UnsafePath);
}

TEST_F(JobFiles, TheProgressFileIsCreatedExclusivelyOrMustBeTheUsersOwn) {
  const std::string fresh = at("progress.jsonl");
  prepare_progress_file(fresh);
  struct stat info {};
  ASSERT_EQ(::lstat(fresh.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  EXPECT_NO_THROW(prepare_progress_file(fresh)) << "a requeued job's own file is taken";
  ASSERT_EQ(::symlink(at("elsewhere").c_str(), at("link.jsonl").c_str()), 0);
  EXPECT_THROW(prepare_progress_file(at("link.jsonl")), UnsafePath);
  EXPECT_NE(::access(at("elsewhere").c_str(), F_OK), 0) << "nothing created through the link";
  put_text(at("group-writable.jsonl"), "", 0664);
  EXPECT_THROW(prepare_progress_file(at("group-writable.jsonl")), UnsafePath);
  if (!can_chown()) GTEST_SKIP() << "not root: cannot give a file to another user";
  put_text(at("theirs.jsonl"), "", 0644);
  ASSERT_EQ(::chown(at("theirs.jsonl").c_str(), kNobody, kNobody), 0);
  EXPECT_THROW(prepare_progress_file(at("theirs.jsonl")), UnsafePath);
}

TEST_F(JobFiles, APrivateDirectoryIsMadeOrMustBeTheUsersOwn) {
  make_private_directory(at("mine"));
  struct stat info {};
  ASSERT_EQ(::lstat(at("mine").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  EXPECT_NO_THROW(make_private_directory(at("mine")));
  ASSERT_EQ(::mkdir(at("open").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(at("open").c_str(), 0755), 0);
  EXPECT_THROW(make_private_directory(at("open")), UnsafePath);
  ASSERT_EQ(::symlink(at("mine").c_str(), at("link").c_str()), 0);
  EXPECT_THROW(make_private_directory(at("link")), UnsafePath);
  put_text(at("file"), "");
  EXPECT_THROW(make_private_directory(at("file")), UnsafePath);
  if (!can_chown()) GTEST_SKIP() << "not root: cannot give a directory to another user";
  ASSERT_EQ(::mkdir(at("theirs").c_str(), 0700), 0);
  ASSERT_EQ(::chown(at("theirs").c_str(), kNobody, kNobody), 0);
  try {
    make_private_directory(at("theirs"));
    ADD_FAILURE() << "another user's directory was taken";
  } catch (const UnsafePath& e) {
    EXPECT_NE(std::string(e.what()).find("not yours (owner uid 65534"), std::string::npos)
        << e.what();
  }
}

TEST_F(JobFiles, TheJobsDirectoryIsUnderTheWorkingDirectoryWhenOnlyTheUserCanWriteIt) {
  const std::string work = at("work");
  ASSERT_EQ(::mkdir(work.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(work.c_str(), 0755), 0);
  const JobDirectory made = make_job_directory(work, dir_, "42");
  EXPECT_EQ(made.path, work + "/.gaptrain/42");
  EXPECT_FALSE(made.not_in_working_dir);
  struct stat info {};
  ASSERT_EQ(::lstat(made.path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  EXPECT_EQ(make_job_directory(work, dir_, "42").path, made.path) << "a requeued job's again";
}

// A group's project directory (group-writable, setgid, another member's) is where the job's
// files go: every node sees it, and its group can already touch everything in it.
TEST_F(JobFiles, AGroupsProjectDirectoryIsUsed) {
  const std::string project = at("project");
  ASSERT_EQ(::mkdir(project.c_str(), 0775), 0);
  ASSERT_EQ(::chmod(project.c_str(), 02775), 0);
  const JobDirectory made = make_job_directory(project, dir_, "11");
  EXPECT_EQ(made.path, project + "/.gaptrain/11");
  EXPECT_FALSE(made.not_in_working_dir);
  struct stat info {};
  ASSERT_EQ(::lstat(made.path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
}

TEST_F(JobFiles, ASharedWorkingDirectoryIsNotUsed) {
  const std::string shared = at("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
  const JobDirectory made = make_job_directory(shared, dir_, "9");
  EXPECT_EQ(made.path.rfind(dir_ + "/gaptrain-9.", 0), 0U) << made.path;
  ASSERT_TRUE(made.not_in_working_dir);
  EXPECT_NE(made.not_in_working_dir->find("writable by every user"), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::lstat(made.path.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  EXPECT_NE(make_job_directory(shared, dir_, "9").path, made.path)
      << "a fresh name each time: nobody can create it first";
  // An unwritable working directory falls back the same way, and a fallback directory others
  // could write in is refused.
  EXPECT_TRUE(make_job_directory("/nonexistent-dir", dir_, "9").not_in_working_dir);
  EXPECT_THROW(make_job_directory("/nonexistent-dir", shared, "9"), UnsafePath);
}

TEST_F(JobFiles, APlantedGaptrainDirectoryIsRefused) {
  const std::string work = at("work");
  ASSERT_EQ(::mkdir(work.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((work + "/.gaptrain").c_str(), 0777), 0);
  ASSERT_EQ(::chmod((work + "/.gaptrain").c_str(), 0777), 0);
  EXPECT_THROW(make_job_directory(work, dir_, "7"), UnsafePath);
  ASSERT_EQ(::rmdir((work + "/.gaptrain").c_str()), 0);
  ASSERT_EQ(::symlink(dir_.c_str(), (work + "/.gaptrain").c_str()), 0);
  EXPECT_THROW(make_job_directory(work, dir_, "7"), UnsafePath);
}

TEST_F(JobFiles, AFileTheUserNamesMustBeInADirectoryNobodyElseCanWrite) {
  EXPECT_NO_THROW(check_directory_of(at("hosts")));
  const std::string shared = at("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
  EXPECT_THROW(check_directory_of(shared + "/hosts"), UnsafePath);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  EXPECT_NO_THROW(check_directory_of(shared + "/hosts")) << "sticky, as /tmp: names are ours";
}

// Progress that went back, or grew faster than the job's nodes could train, was read as the
// job's: `gaptrain job` showed 2e12 samples, the summary a negative rate.
TEST_F(JobFiles, ProgressThatGoesBackOrJumpsIsRefusedAndSaidOnce) {
  const std::string path = at("progress.jsonl");
  ProgressFeed feed(path, 4);
  EXPECT_FALSE(feed.read(0.0).progress) << "not written yet";
  put_text(path, "{\"samples_done\":100,\"time\":1000}\n");
  ProgressFeed::Reading reading = feed.read(1.0);
  ASSERT_TRUE(reading.progress);
  EXPECT_EQ(reading.progress->samples_done, 100.0);
  EXPECT_FALSE(reading.say);
  put_text(path, "{\"samples_done\":2e12,\"time\":1001}\n");
  reading = feed.read(2.0);
  EXPECT_FALSE(reading.progress) << "4 nodes train at most 4e9 samples a second";
  ASSERT_TRUE(reading.say);
  EXPECT_NE(reading.say->find("jumped from 100 to 2e+12"), std::string::npos) << *reading.say;
  EXPECT_FALSE(feed.read(2.5).say) << "said once, not at every poll";
  put_text(path, "{\"samples_done\":50,\"time\":1002}\n");
  reading = feed.read(3.0);
  EXPECT_FALSE(reading.progress);
  ASSERT_TRUE(reading.say) << "another reason is said";
  EXPECT_NE(reading.say->find("went back from 100 to 50"), std::string::npos) << *reading.say;
  EXPECT_FALSE(feed.read(3.5).say);
  put_text(path, "{\"samples_done\":300,\"time\":990}\n");
  reading = feed.read(4.0);
  ASSERT_TRUE(reading.progress);
  EXPECT_EQ(reading.progress->samples_done, 300.0);
  EXPECT_FALSE(reading.progress->time) << "a time before the last one is no time";
  ASSERT_TRUE(reading.say);
  EXPECT_NE(reading.say->find("taken again"), std::string::npos);
  EXPECT_FALSE(last_samples_done("{\"samples_done\":1e19}\n")) << "beyond bounds::kMaxSamplesDone";
}

TEST_F(JobFiles, AProgressFileOpenToOthersIsSaidOnce) {
  const std::string path = at("progress.jsonl");
  put_text(path, "{\"samples_done\":2e12}\n", 0666);
  ProgressFeed feed(path, 4);
  const ProgressFeed::Reading reading = feed.read(0.0);
  EXPECT_FALSE(reading.progress);
  ASSERT_TRUE(reading.say);
  EXPECT_NE(reading.say->find("writable by other users"), std::string::npos) << *reading.say;
  EXPECT_FALSE(feed.read(1.0).say);
}

TEST(LaunchSaidOnce, AFailureIsSaidOnceUntilItEnds) {
  SaidOnce failure;
  EXPECT_EQ(failure.failed("cannot update the host file"), "cannot update the host file");
  for (int pass = 0; pass < 65; ++pass) EXPECT_FALSE(failure.failed("again"));
  EXPECT_TRUE(failure.succeeded());
  EXPECT_FALSE(failure.succeeded());
  EXPECT_TRUE(failure.failed("later"));
}

}  // namespace
}  // namespace gaptrain::launch::launch_files_test
