#include "submit_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gaptrain::cli::submit_plan_test {
namespace {

using Words = std::vector<std::string>;

SubmitRequest parsed(const Words& args) {
  std::string error;
  const auto request = parse_submit(args, error);
  EXPECT_TRUE(request) << error;
  return request.value_or(SubmitRequest{});
}

std::string refusal(const Words& args) {
  std::string error;
  EXPECT_FALSE(parse_submit(args, error));
  return error;
}

TEST(SubmitPlan, OneLineBecomesTheWholeElasticSubmission) {
  const SubmitRequest request =
      parsed({"-N", "1-4", "-A", "proj", "--cost", "5:3", "--", "python3", "train.py", "--x"});
  SubmitSite site;
  site.elastic_partition = "gaps";
  EXPECT_EQ(sbatch_command(request, site),
            (Words{"sbatch", "--begin=now+365days", "--no-kill", "--partition=gaps", "--nodes=1-4",
                   "--elastic=1-4", "--elastic-cost=5:3", "--job-name=train.py", "-A", "proj",
                   "--wrap=exec gaptrain-launch -- python3 train.py --x"}));
}

// Only some node counts: Slurm gets the range, the plugin the counts.
TEST(SubmitPlan, AllowedSizesGoToThePluginAndTheRangeToSlurm) {
  const Words argv = sbatch_command(parsed({"-N", "2-8:2", "--", "x"}), {});
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--nodes=2-8"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic=2-8:2"), argv.end());
  const Words powers = sbatch_command(parsed({"-N", "1,2,4,8", "--", "x"}), {});
  EXPECT_NE(std::find(powers.begin(), powers.end(), "--nodes=1-8"), powers.end());
  EXPECT_NE(std::find(powers.begin(), powers.end(), "--elastic=1,2,4,8"), powers.end());
  EXPECT_NE(refusal({"-N", "2-8:0", "--", "x"}).find("2-8:2"), std::string::npos);
}

// Parked by default (a begin time far ahead: gaptraind admits it by Slurm's priority); held
// when the user asks for --hold, or gives a begin time of their own, which parking would
// overwrite (sbatch takes the last --begin) and which a held job keeps.
TEST(SubmitPlan, AJobIsParkedUnlessHeldOrGivenItsOwnBeginTime) {
  const auto second_word = [](const Words& args) {
    return sbatch_command(parsed(args), SubmitSite{})[1];
  };
  EXPECT_EQ(second_word({"-N", "1-2", "--", "x"}), "--begin=now+365days");
  EXPECT_EQ(second_word({"-N", "1-2", "--hold", "--", "x"}), "--hold");
  for (const Words& own : {Words{"--begin=16:00"}, Words{"--begin", "now+1hour"},
                           Words{"-b", "16:00"}, Words{"-b16:00"}}) {
    Words args = {"-N", "1-2"};
    args.insert(args.end(), own.begin(), own.end());
    args.insert(args.end(), {"--", "x"});
    const Words argv = sbatch_command(parsed(args), SubmitSite{});
    EXPECT_EQ(argv[1], "--hold") << own.front();
    EXPECT_EQ(std::count(argv.begin(), argv.end(), own.front()), 1) << own.front();
    EXPECT_EQ(std::count_if(argv.begin(), argv.end(),
                            [](const std::string& w) { return w.starts_with("--begin=now+365"); }),
              0)
        << own.front();
  }
  // Not a begin time: another option of sbatch's that starts with -b is not one.
  EXPECT_EQ(second_word({"-N", "1-2", "--bb=x", "--", "x"}), "--begin=now+365days");
}

TEST(SubmitPlan, TorchrunScriptsRunUnderTheRunner) {
  const SubmitRequest request = parsed({"--nodes=2-8", "--torchrun", "ddp.py", "--epochs", "3"});
  EXPECT_TRUE(request.torchrun);
  EXPECT_EQ(request.command, (Words{"ddp.py", "--epochs", "3"}));
  SubmitSite site;
  site.controller = "10.0.0.1:6830";
  const Words argv = sbatch_command(request, site);
  EXPECT_EQ(argv.back(),
            "--wrap=exec gaptrain-launch --controller 10.0.0.1:6830 --torchrun -- ddp.py "
            "--epochs 3");
}

TEST(SubmitPlan, TorchrunRunsUnderTheInterpreterRecorded) {
  SubmitRequest request =
      parsed({"-N", "1-4", "--python", "/opt/venv/bin/python3", "--torchrun", "ddp.py"});
  EXPECT_TRUE(request.python_given);
  EXPECT_EQ(request.python, "/opt/venv/bin/python3");
  EXPECT_EQ(sbatch_command(request, {}).back(),
            "--wrap=exec gaptrain-launch --torchrun --python /opt/venv/bin/python3 -- ddp.py");
  request.python = "/home/a b/env/bin/python";  // quoted for the shell
  EXPECT_EQ(sbatch_command(request, {}).back(),
            "--wrap=exec gaptrain-launch --torchrun --python '/home/a b/env/bin/python' -- ddp.py");
}

TEST(SubmitPlan, PythonIsForTorchrunOnly) {
  std::string error;
  EXPECT_FALSE(parse_submit({"-N", "1-4", "--python", "/usr/bin/python3", "--", "x"}, error));
  EXPECT_NE(error.find("--python is the interpreter of --torchrun"), std::string::npos) << error;
  EXPECT_FALSE(parse_submit({"-N", "1-4", "--python=", "--torchrun", "x.py"}, error));
  EXPECT_NE(error.find("--python: expected the path"), std::string::npos) << error;
}

TEST(SubmitPlan, MaxRestartsReachesTheLauncher) {
  const SubmitRequest request = parsed({"-N", "1-4", "--max-restarts", "5", "--torchrun", "x.py"});
  EXPECT_EQ(request.max_restarts, 5);
  EXPECT_EQ(sbatch_command(request, {}).back(),
            "--wrap=exec gaptrain-launch --max-restarts 5 --torchrun -- x.py");
  std::string error;
  for (const char* bad : {"-1", "1001", "3x", ""}) {
    EXPECT_FALSE(parse_submit({"-N", "1-4", "--max-restarts", bad, "--", "x"}, error)) << bad;
    EXPECT_NE(error.find("--max-restarts: expected a whole number"), std::string::npos) << error;
  }
}

TEST(SubmitPlan, ThePythonAskedNamesItselfAndWhatItLacks) {
  const std::optional<PythonAnswer> venv = python_answer("/home/u/venv/bin/python3\n\n");
  ASSERT_TRUE(venv);
  EXPECT_EQ(venv->executable, "/home/u/venv/bin/python3");
  EXPECT_TRUE(venv->missing.empty());
  const std::optional<PythonAnswer> bare = python_answer("/usr/bin/python3\ntorch gaptrain\n");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->missing, (Words{"torch", "gaptrain"}));
  EXPECT_FALSE(python_answer(""));
  EXPECT_FALSE(python_answer("python3\n"));  // not absolute: it would be looked up again
}

TEST(SubmitPlan, ThePartitionAndNameGivenWin) {
  const Words argv = sbatch_command(parsed({"-N4", "-p", "mine", "-J", "run7", "--", "a.sh"}), {});
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--partition=elastic"), 0);
  EXPECT_EQ(std::count_if(argv.begin(), argv.end(),
                          [](const std::string& w) { return w.rfind("--job-name", 0) == 0; }),
            0);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic=4"), argv.end());
}

TEST(SubmitPlan, NoticeAndParsable) {
  const Words argv =
      sbatch_command(parsed({"-N", "1-2", "--notice", "45", "--parsable", "--", "x"}), {});
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic-notice=45"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--parsable"), argv.end());
}

// A job that may run on several node types at once says so to the plugin.
TEST(SubmitPlan, MixTypesGoesToThePlugin) {
  const Words argv = sbatch_command(parsed({"-N", "1-8", "--mix-types", "--", "x"}), {});
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic-mix-types"), argv.end());
  const Words plain = sbatch_command(parsed({"-N", "1-8", "--", "x"}), {});
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--elastic-mix-types"), plain.end());
}

TEST(SubmitPlan, TheBatchRangeAndNoiseScaleGoToThePlugin) {
  const Words argv = sbatch_command(
      parsed({"-N", "1-8", "--batch", "128:4096:256", "--noise-scale=900.5", "--", "x"}), {});
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic-batch=128:4096:256"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--elastic-noise-scale=900.5"), argv.end());
  const Words two = sbatch_command(parsed({"-N", "1-8", "--batch=64:64", "--", "x"}), {});
  EXPECT_NE(std::find(two.begin(), two.end(), "--elastic-batch=64:64"), two.end());
  EXPECT_EQ(std::count_if(two.begin(), two.end(),
                          [](const std::string& w) { return w.rfind("--elastic-noise", 0) == 0; }),
            0);
  const Words none = sbatch_command(parsed({"-N", "1-8", "--", "x"}), {});
  EXPECT_EQ(std::count_if(none.begin(), none.end(),
                          [](const std::string& w) { return w.rfind("--elastic-batch", 0) == 0; }),
            0);
}

TEST(SubmitPlan, BadBatchRangesAndNoiseScalesSayWhatToWrite) {
  for (const char* bad : {"128", "0:8", "8:4", "8:16:0", "8:16:4:2", "8.5:16", "+8:16", "8:1e3",
                          "8:2000000000", ":16", "8:"}) {
    EXPECT_NE(refusal({"-N", "1-2", "--batch", bad, "--", "x"}).find("--batch"), std::string::npos)
        << bad;
  }
  EXPECT_NE(refusal({"-N", "1-2", "--batch", "8:4", "--", "x"}).find("M0:MAX[:PERNODE]"),
            std::string::npos);
  for (const char* bad : {"-1", "nan", "1e16", "900s", ""}) {
    EXPECT_NE(refusal({"-N", "1-2", "--batch", "8:16", "--noise-scale", bad, "--", "x"})
                  .find("--noise-scale"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(refusal({"-N", "1-2", "--noise-scale", "900", "--", "x"}).find("add --batch"),
            std::string::npos);
}

TEST(SubmitPlan, BadLinesSayWhatToWrite) {
  EXPECT_NE(refusal({"--", "x"}).find("-N MIN-MAX"), std::string::npos);
  EXPECT_NE(refusal({"-N", "4-2", "--", "x"}).find("MIN <= MAX"), std::string::npos);
  EXPECT_NE(refusal({"-N", "0", "--", "x"}).find("-N"), std::string::npos);
  EXPECT_NE(refusal({"-N", "1-2"}).find("after --"), std::string::npos);
  EXPECT_NE(refusal({"-N", "1-2", "--torchrun"}).find("SCRIPT"), std::string::npos);
  EXPECT_NE(refusal({"-N", "1-2", "--elastic=1-2", "--", "x"}).find("leave it out"),
            std::string::npos);
  EXPECT_NE(refusal({"-N", "1-2", "--notice", "-1", "--", "x"}).find("--notice"),
            std::string::npos);
  EXPECT_NE(refusal({"-N"}).find("needs a value"), std::string::npos);
}

TEST(SubmitPlan, ShellQuotingSurvivesAnyWord) {
  EXPECT_EQ(shell_quote("train.py"), "train.py");
  EXPECT_EQ(shell_quote("my dir"), "'my dir'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
}

}  // namespace
}  // namespace gaptrain::cli::submit_plan_test
