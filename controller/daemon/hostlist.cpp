#include "hostlist.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "slurm_api.hpp"

namespace gaptrain::daemon {

std::vector<std::string> expand_hostlist(const char* text) {
  std::vector<std::string> names;
  if (text == nullptr || *text == '\0') return names;
  const std::unique_ptr<std::remove_pointer_t<hostlist_t>, decltype(&slurm_hostlist_destroy)> list(
      slurm_hostlist_create(text), &slurm_hostlist_destroy);
  if (!list) throw std::invalid_argument(std::string("bad Slurm host list: ") + text);
  // slurm_hostlist_shift hands over a malloc'd string the caller frees.
  while (char* name = slurm_hostlist_shift(list.get())) {
    names.emplace_back(name);
    std::free(name);
  }
  return names;
}

}  // namespace gaptrain::daemon
