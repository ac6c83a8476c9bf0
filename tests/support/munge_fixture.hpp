// Where the private munged of the ctest fixture (munged_fixture.sh) listens, if it runs.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace gaptrain::test {

// The socket path, or "" when the fixture could not start munged (tests then GTEST_SKIP).
inline std::string fixture_munge_socket() {
  const char* info = std::getenv("GAPTRAIN_TEST_MUNGE_INFO");
  if (info == nullptr) return {};
  std::ifstream in(info);
  std::string socket;
  std::getline(in, socket);
  return socket;
}

}  // namespace gaptrain::test
