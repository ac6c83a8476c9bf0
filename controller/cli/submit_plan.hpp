// `gaptrain submit`'s command line turned into the sbatch command it runs. Pure: parsing and
// building only, so both are tested without Slurm (tests/cli/submit_plan_test.cpp).
//
//   gaptrain submit -N MIN-MAX [gaptrain options] [sbatch options] -- COMMAND [ARGS...]
//   gaptrain submit -N MIN-MAX [gaptrain options] [sbatch options] --torchrun SCRIPT [ARGS...]
//
// becomes
//
//   sbatch --begin=now+365days --no-kill -p ELASTIC -N MIN-MAX --elastic=MIN-MAX
//     [--elastic-curve=FILE] [--elastic-cost=UP:DOWN] [--elastic-notice=S]
//     [--elastic-batch=M0:MAX[:PERNODE]]
//     [--elastic-noise-scale=PHI] -J NAME [sbatch options]
//     --wrap 'exec gaptrain-launch [--controller HOST:PORT] [--max-restarts N]
//             [--torchrun --python PYTHON] -- COMMAND ARGS...'
//
// PYTHON is the interpreter the job's torchrun agent runs under: --python, else the one the
// submitting environment runs as `python3` (submit_python.hpp resolves it before this).
//
// --begin=now+365days parks the job (controller/core/parking.hpp): gaptraind admits it, in the
// order of the priority Slurm computes for it (fair-share included). With `--hold`, or with a
// begin time of the user's own (--begin, -b), the job is submitted --hold instead: held jobs
// have priority 0 in Slurm and are admitted first come, first served, each not before its own
// begin time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gaptrain/goodput.hpp"

namespace gaptrain::cli {

struct SubmitRequest {
  int min_nodes = 0;
  int max_nodes = 0;
  std::vector<int> allowed_sizes;        // -N 2-8:2 or 1,2,4,8 (node_sizes.hpp); empty: every count
  std::string curve_file;                // --curve
  std::string cost;                      // --cost UP:DOWN, as given (the plugin checks it)
  std::optional<double> notice_s;        // --notice S
  std::optional<BatchRange> batch;       // --batch M0:MAX[:PERNODE]
  std::optional<double> noise_scale;     // --noise-scale PHI (needs --batch)
  bool torchrun = false;                 // --torchrun SCRIPT: the command is a torchrun script
  std::string python;                    // --python PATH (torchrun's interpreter); empty: resolved
  bool python_given = false;             // --python was on the command line
  std::optional<int> max_restarts;       // --max-restarts N: the launcher's (and torchrun's) bound
  bool mix_types = false;                // --mix-types: may run on several node types at once
  bool parsable = false;                 // --parsable: passed to sbatch (prints the id alone)
  bool dry_run = false;                  // --dry-run: print the sbatch command, run nothing
  bool hold = false;                     // --hold, or a --begin of the user's own: held, not parked
  std::vector<std::string> sbatch_args;  // everything else before the command, in order
  std::vector<std::string> command;      // COMMAND ARGS... (with --torchrun: SCRIPT ARGS...)
};

// What the site says: where elastic jobs go and where gaptraind listens.
struct SubmitSite {
  std::string elastic_partition = "elastic";  // the first of gaptraind.json's elastic_partition
  std::string controller;  // HOST:PORT for the launcher; empty: the job's environment has it
  std::string launcher = "gaptrain-launch";
};

// The request, or empty with `error` saying what is wrong and what to write instead.
std::optional<SubmitRequest> parse_submit(const std::vector<std::string>& args, std::string& error);

// The sbatch argv (argv[0] "sbatch").
std::vector<std::string> sbatch_command(const SubmitRequest& request, const SubmitSite& site);

// `word` quoted for sh: as is when it has only safe characters, else in single quotes.
std::string shell_quote(const std::string& word);

// The interpreter of a --torchrun job, as the submitting environment runs it: `PYTHON -c
// kPythonQuestion` prints its sys.executable (a venv's own path, a pyenv shim's real
// interpreter) and the modules the job needs that it cannot find.
extern const char* const kPythonQuestion;
struct PythonAnswer {
  std::string executable;            // absolute
  std::vector<std::string> missing;  // of torch, gaptrain
};
// That output read; empty when it names no absolute interpreter.
std::optional<PythonAnswer> python_answer(const std::string& output);

}  // namespace gaptrain::cli
