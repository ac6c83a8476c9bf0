// libslurm's header, included once and as C: it is not warning-clean under our flags (old-style
// casts in macros, C-only constructs), so only the adapter's .cpp files include it, and the
// CMake target adds /usr/include/slurm as a SYSTEM directory.
#pragma once

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}
