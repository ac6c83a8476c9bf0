// The training's progress as the launcher reports it: the training appends JSON lines with a
// cumulative "samples_done" to a file (--progress-file, GAPTRAIN_PROGRESS_FILE); the launcher
// reads the last one. The helper (python/gaptrain) also writes "time" (Unix seconds) and
// "world_size", and with a batch range (issue 30) "grad_sqr" and "grad_var" (its smoothed
// gradient statistics, normalised to the tuned batch), which the launcher passes on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

// The last complete line of `text`: a JSON object whose "samples_done" is a finite number >= 0
// ("time", "world_size", "grad_sqr" and "grad_var" are taken when usable, else left empty). A
// trailing line without
// '\n' is ignored (the writer may be mid-append). Empty when that line is missing, not such an
// object, or carries no usable samples_done.
std::optional<Progress> last_progress(std::string_view text);

// last_progress() of the end of the file at `path` (its last 64 KiB). Empty when the file is
// missing or unreadable (the training may not have written it yet), or is not a regular file (a
// named pipe is never waited on).
std::optional<Progress> read_progress(const std::string& path);

}  // namespace gaptrain::launch
