// What gaptraind must not forget across a restart (a crash, an upgrade, kill -9): the elastic
// jobs' registrations (the plugin registers a job once, when its batch step starts) with what
// was learned of them, and the time limit each managed job was submitted with (its leases are
// capped by it; after a restart Slurm shows only the current lease), and what an admin lets
// gaptraind do (operation.hpp: a paused or draining gaptraind stays so). Everything else is
// rebuilt from Slurm at the first poll. A small JSON file, written whole and atomically
// (a fresh temporary file beside it, fsync, rename, fsync of the directory), read once at
// start. One gaptraind per state file: state_lock.hpp.
//   {"version":1,
//    "jobs":[{"registration":{...a "register" request (protocol.hpp)...},"uid":UID,
//             "registered_at":EPOCH,"learned_curve":[[N,RATE],...]|absent,
//             "learned_costs":{"up_s":S,"down_s":S}|absent,
//             "learned_noise_scale":PHI|absent}],
//    "user_limits":{"JOB_ID":MINUTES,...},
//    "operation":"running"|"paused"|"draining"}   (absent from older files: running)
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/saved_state.hpp"

namespace gaptrain::daemon {

// A state file is a few KB per job; anything near this is not one gaptraind wrote.
inline constexpr std::size_t kMaxStateFileBytes = std::size_t{64} << 20;

std::string encode_state(const core::SavedState& state);

// An entry of the file left out when decoding, and why ("jobs[2].learned_curve", "...").
struct DroppedEntry {
  std::string field;
  std::string reason;
};

struct DecodedState {
  core::SavedState state;
  std::vector<DroppedEntry> dropped;
};

// Decodes a state of version 1. The file as a whole must be one (a JSON object of this
// version with "jobs" and "user_limits", at most kMaxStateFileBytes): otherwise throws
// gaptrain::InputError naming the field. A bad entry inside it (a hand edit, a corrupt byte)
// does not cost the others: a job whose registration or identity is bad, a repeated job, a
// bad user limit are left out (a bad operation too: running); a bad learned curve or learned costs
// are left out of their job, which learns them again. Each appears in `dropped`. What is kept
// satisfies what restoring it needs: learned curves keep ScalingCurve's rule (rates > 0: the
// speedup and fair objectives divide by the 1-node rate), learned costs are finite seconds >= 0.
DecodedState decode_state(std::string_view json);

// Replaces `path` by `text` atomically and durably: the text goes to a new file created
// exclusively beside it (O_EXCL: a symlink or file planted at a temporary name is never
// followed or reused), is fsynced, renamed onto `path`, and the directory is fsynced so the
// rename itself survives a power loss. A reader (or a crash) sees the old file or the new one,
// never a mix. Mode 0600. Throws std::system_error naming the step that failed (and leaves no
// temporary file behind).
void write_file_atomically(const std::string& path, const std::string& text);

// The file's content; nullopt when it does not exist. Throws std::system_error otherwise.
// Reads at most max_bytes + 1 bytes: a longer file comes back cut there, longer than
// max_bytes, so that the caller refuses it (decode_state does) without holding all of it.
std::optional<std::string> read_file_if_exists(const std::string& path,
                                               std::size_t max_bytes = kMaxStateFileBytes);

}  // namespace gaptrain::daemon
