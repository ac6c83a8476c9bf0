// What the fuzz targets share: a broken promise of the code under test (a documented
// postcondition that does not hold, an exception it does not document) is a finding, reported
// like a sanitizer's: a message on stderr and abort(), which libFuzzer records as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace gaptrain::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return size == 0 ? std::string_view()
                   : std::string_view(reinterpret_cast<const char*>(data), size);
}

[[noreturn]] inline void fail(const char* what, const char* detail = "") {
  std::fprintf(stderr, "fuzz finding: %s%s%s\n", what, *detail != '\0' ? ": " : "", detail);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

// f() for a step that must succeed (e.g. re-reading what the code itself wrote): any exception
// is a finding.
template <typename F>
auto must_succeed(F&& f, const char* what) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
}

}  // namespace gaptrain::fuzz
