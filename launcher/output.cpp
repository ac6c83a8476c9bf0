#include "output.hpp"

#include <chrono>
#include <ctime>
#include <iostream>

namespace gaptrain::launch {

std::string clock_time(double unix_s) {
  const auto seconds = static_cast<std::time_t>(unix_s);
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[16];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &local);
  return stamp;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

void say(const std::string& line) {
  std::cerr << "gaptrain-launch " << clock_time(unix_now()) << ": " << line << std::endl;
}

}  // namespace gaptrain::launch
