// The launcher's lines in the job's output: each timed in local time, as the user reads the
// rest of it.
#pragma once

#include <string>
#include <vector>

namespace gaptrain::launch {

// "HH:MM:SS" of a Unix time, local.
std::string clock_time(double unix_s);
// The Unix time now, to the sub-second.
double unix_now();
// One line "gaptrain-launch HH:MM:SS: LINE" on standard error.
void say(const std::string& line);

// "n1,n2,n3": nodes for a line of the job's output.
std::string join(const std::vector<std::string>& items);

}  // namespace gaptrain::launch
