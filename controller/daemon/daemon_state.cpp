// The state file's bytes: read for the first poll to restore (Controller::observe), written
// after each change (Controller::saved).
#include <cstdio>
#include <set>
#include <string>
#include <system_error>

#include "daemon.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "log.hpp"
#include "state_file.hpp"

namespace gaptrain::daemon {

std::optional<core::SavedState> Daemon::load_state() {
  state_loaded_ = true;
  const std::string& path = config_.state_file;
  if (path.empty()) return std::nullopt;
  try {
    const std::optional<std::string> text = read_file_if_exists(path);
    if (!text) return std::nullopt;
    DecodedState decoded = decode_state(*text);
    // The rest of the file is used. The file as it was is kept aside, as an unreadable one is,
    // for the next save would drop what was left out.
    if (!decoded.dropped.empty()) {
      const std::string aside = path + ".unreadable";
      const bool moved = std::rename(path.c_str(), aside.c_str()) == 0;
      for (const DroppedEntry& dropped : decoded.dropped) {
        log::warning("state file entry dropped", {{"PATH", path},
                                                  {"FIELD", dropped.field},
                                                  {"REASON", dropped.reason},
                                                  {"MOVED_TO", moved ? aside : "-"}});
      }
    }
    return std::move(decoded.state);
  } catch (const std::system_error& e) {
    log::warning("cannot read the state file: starting without it",
                 {{"PATH", path}, {"REASON", e.what()}});
  } catch (const InputError& e) {
    // Kept aside, not overwritten by the next save: someone may want to look at it.
    const std::string aside = path + ".unreadable";
    const bool moved = std::rename(path.c_str(), aside.c_str()) == 0;
    log::warning("state file unreadable: starting without it",
                 {{"PATH", path}, {"REASON", e.what()}, {"MOVED_TO", moved ? aside : "-"}});
  }
  return std::nullopt;
}

void Daemon::save_state() {
  const std::string& path = config_.state_file;
  if (path.empty() || !state_loaded_) return;
  const std::string text = encode_state(controller_->saved(operation_));
  if (text == saved_state_) return;
  try {
    write_file_atomically(path, text);
    saved_state_ = text;
    if (const long long failed = state_write_failures_.succeeded(); failed > 0) {
      log::info("state file written again", {{"PATH", path}, {"FAILED_WRITES", failed}});
    }
  } catch (const std::system_error& e) {
    // Each message names a fresh temporary file: only the first of a run is logged.
    if (state_write_failures_.failed()) {
      log::warning(
          "cannot write the state file: a restart would forget the elastic jobs and a pause",
          {{"PATH", path}, {"REASON", e.what()}});
    }
  }
}

}  // namespace gaptrain::daemon
