// The training's progress as the launcher reports it: the training appends JSON lines with a
// cumulative "samples_done" to a file (--progress-file); the launcher reads the last one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gaptrain::launch {

// samples_done of the last complete line of `text`: a JSON object whose "samples_done" is a
// finite number >= 0. A trailing line without '\n' is ignored (the writer may be mid-append).
// Empty when that line is missing, not such an object, or carries no usable number.
std::optional<double> last_samples_done(std::string_view text);

// last_samples_done() of the end of the file at `path` (its last 64 KiB). Empty when the file
// is missing or unreadable (the training may not have written it yet), or is not a regular file
// (a named pipe is never waited on).
std::optional<double> read_samples_done(const std::string& path);

}  // namespace gaptrain::launch
