// The release version, as `gaptrain --version` prints it.
#pragma once

#include <string_view>

namespace gaptrain {

// Must equal project(gaptrain VERSION ...) in the top-level CMakeLists.txt; the ctest
// cli.version compares the two, so a release bump that forgets this file fails the tests.
inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace gaptrain
