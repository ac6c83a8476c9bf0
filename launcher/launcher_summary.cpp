// The end-of-job lines of gaptrain-launch: what the job went through, in gaptrain job's words.
#include <chrono>
#include <cmath>
#include <sstream>

#include "controller_link.hpp"
#include "launcher.hpp"
#include "output.hpp"

namespace gaptrain::launch {

void Launcher::summarize() const {
  const double wall_s = std::chrono::duration<double>(Clock::now() - started_).count();
  std::ostringstream line;
  line.precision(3);
  // The resizes as gaptraind recorded them, in `gaptrain job`'s words (a drain may be a reclaim
  // or a shrink: only gaptraind knows which); the launcher's own count when it does not answer.
  const auto totals = job_totals(options_.controller, options_.munge_socket, job_.job_id,
                                 std::chrono::milliseconds(2000));
  line << "summary: " << std::lround(wall_s) << " s, ";
  if (totals) {
    line << resize_counts_text(*totals);
  } else {
    line << grows_ << " grow(s), " << shrinks_ << " reclaim(s) or shrink(s)";
  }
  line << ", " << nodes_taken_back_ << " node(s) taken back, " << regroups_
       << " worker restart(s) on request";
  if (first_progress_ && last_progress_) {
    const double samples = last_progress_->samples_done;
    line << ", " << samples << " samples";
    if (first_progress_->time && last_progress_->time &&
        *last_progress_->time > *first_progress_->time) {
      const double rate = (last_progress_->samples_done - first_progress_->samples_done) /
                          (*last_progress_->time - *first_progress_->time);
      line << " (" << rate << " samples/s)";
    }
  } else {
    line << ", no progress reported";
  }
  if (totals) {
    line << ", " << totals->node_hours << " node-hours";
    // The time from a resize to the next progress: without progress there is nothing to lose.
    if (first_progress_) line << ", " << std::lround(totals->resize_lost_s) << " s lost to resizes";
  }
  say(line.str() + "; `gaptrain job " + std::to_string(job_.job_id) + "` shows the details");
}

}  // namespace gaptrain::launch
