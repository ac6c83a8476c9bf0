// The training's progress as the launcher reports it: the training appends JSON lines with a
// cumulative "samples_done" to a file (--progress-file, GAPTRAIN_PROGRESS_FILE); the launcher
// reads the last one. The helper (python/gaptrain) also writes "time" (Unix seconds) and
// "world_size", and with a batch range "grad_sqr" and "grad_var" (its smoothed
// gradient statistics, normalised to the tuned batch), which the launcher passes on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "private_files.hpp"

namespace gaptrain::launch {

struct Progress {
  double samples_done = 0.0;
  std::optional<double> time;     // when the training wrote the line; empty: not given or unusable
  std::optional<int> world_size;  // the training's world size; empty: not given or unusable
  // The gradient statistics gaptraind learns the noise scale from; each empty when not given or
  // not a finite number >= 0.
  std::optional<double> grad_sqr;
  std::optional<double> grad_var;
  // The training follows the job file (the helper says so with "leaves_on_job_file": true): it
  // leaves a node by itself once the file drops it (SIGTERM can wait a moment, and Slurm then
  // reports no cancel), and it handles the notice signal.
  bool leaves_on_job_file = false;
};

// The last complete line of `text`: a JSON object whose "samples_done" is a finite number from 0
// to bounds::kMaxSamplesDone ("time", "world_size", "grad_sqr" and "grad_var" are taken when
// usable, else left empty). A trailing line without
// '\n' is ignored (the writer may be mid-append). Empty when that line is missing, not such an
// object, or carries no usable samples_done.
std::optional<Progress> last_progress(std::string_view text);

// last_progress() of the end of the file at `path` (its last 64 KiB). Empty when the file is
// missing (the training may not have written it yet). Throws UnsafePath (private_files.hpp) when
// it is not the user's own regular file that nobody else can write, or is a symbolic link:
// another user's file is never read as the job's progress, and a named pipe never waited on.
std::optional<Progress> read_progress(const std::string& path);

// The readings the launcher passes on to gaptraind and sums up at the end: from a file of the
// job user's own (read_progress), whose samples_done never goes back and never grows faster than
// `max_nodes` nodes could (bounds::kMaxSamplesPerNodePerS over the time since the last reading
// taken, a second of slack added). A reading whose time goes back keeps its samples, without
// the time (a node's clock was set back). A training restarted from a checkpoint redoes the
// steps since it: its progress is taken again once it passes what was reported.
class ProgressFeed {
 public:
  ProgressFeed(std::string path, int max_nodes);

  struct Reading {
    std::optional<Progress> progress;  // the file's newest reading, when taken
    // A line for the job's output: said when readings start being refused, or for another
    // reason, and when they are taken again; not at every poll.
    std::optional<std::string> say;
  };

  // Reads the file now, `now_s` seconds on a monotonic clock.
  Reading read(double now_s);

  struct Refusal {
    std::string kind;  // "back", "fast", "file": a new kind is said again
    std::string why;
  };
  // Why `progress` is refused after the readings taken so far, or empty.
  std::optional<Refusal> refusal(const Progress& progress, double now_s) const;

 private:
  Reading refused(const Refusal& refusal);

  std::string path_;
  int max_nodes_;
  std::optional<Progress> taken_;  // the last reading taken
  double taken_at_s_ = 0.0;
  std::optional<std::string> refusing_;  // the kind of refusal said last; empty: taking
};

}  // namespace gaptrain::launch
