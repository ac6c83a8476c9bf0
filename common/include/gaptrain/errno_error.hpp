// The one way a failed system call becomes an exception, where a caller reports it.
#pragma once

#include <string>
#include <system_error>

namespace gaptrain {

// Throws std::system_error for the error number `error` (errno read right after the call that
// failed, or the error a call returns: posix_spawn's, sd-event's negated), saying `what` was
// being done.
[[noreturn]] inline void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

}  // namespace gaptrain
