// The text of one of Pollux's model files in ../shared/data/models/pollux, for the tests of the
// goodput model and the simulator's replay of it.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace gaptrain::sim {

inline std::string read_pollux(const std::string& name) {
  std::ifstream in(std::string(GAPTRAIN_SHARED_DATA_DIR) + "/models/pollux/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gaptrain::sim
