// Slurm host lists ("n[1-3,7],gpu1") expanded with libslurm's own parser, so gaptrain reads them
// exactly as Slurm writes them.
#pragma once

#include <string>
#include <vector>

namespace gaptrain::daemon {

// The node names in `text`, in order; empty for an empty or null list. Throws
// std::invalid_argument when libslurm cannot parse it.
std::vector<std::string> expand_hostlist(const char* text);

}  // namespace gaptrain::daemon
