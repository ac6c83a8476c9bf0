// Says when a failure that repeats is worth a log line: the first failure of a run of them, and
// the success that ends it (with how many tries failed), never the tries in between. gaptraind's
// state file is written at every poll that changed it: a full disk logged "cannot write the
// state file" 25 times in 17 s, each line a new temporary name. Pure: outcomes in, verdicts out.
#pragma once

#include <utility>

namespace gaptrain::daemon {

class FailureReporter {
 public:
  // A try failed. True when it is the first since the last success (or ever): log it.
  bool failed() { return failures_++ == 0; }

  // A try succeeded. How many failed tries it ends: log the recovery when that is not 0.
  long long succeeded() { return std::exchange(failures_, 0); }

 private:
  long long failures_ = 0;  // since the last success
};

}  // namespace gaptrain::daemon
