// A failure the launcher's loop meets at every pass (a file it cannot write) said once in the
// job's output, not at every pass, and its end said once.
#pragma once

#include <optional>
#include <string>

namespace gaptrain::launch {

class SaidOnce {
 public:
  // `line` when this is the first failure since the last success, else empty.
  std::optional<std::string> failed(std::string line) {
    if (failing_) return std::nullopt;
    failing_ = true;
    return line;
  }
  // True when this success ends a failure that was said.
  bool succeeded() {
    const bool ended = failing_;
    failing_ = false;
    return ended;
  }

 private:
  bool failing_ = false;
};

}  // namespace gaptrain::launch
