#include "core/elastic_partitions.hpp"

#include <algorithm>

#include "core/settings.hpp"
#include "gaptrain/input_error.hpp"

namespace gaptrain::core {

ElasticPartitions::ElasticPartitions() : names_{std::string(kDefaultElasticPartition)} {}

ElasticPartitions::ElasticPartitions(std::string_view comma_separated) {
  constexpr const char* kKey = "elastic_partition";
  std::string_view rest = comma_separated;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    if (name.empty()) {
      throw InputError(kKey, "\"" + std::string(comma_separated) +
                                 "\" has an empty partition name: name the Slurm partition "
                                 "elastic jobs run in, or several joined by commas (\"gpu,cpu\")");
    }
    if (name.find_first_of(" \t\n") != std::string_view::npos) {
      throw InputError(kKey, "\"" + std::string(name) +
                                 "\" holds a blank: Slurm partition names have none; join "
                                 "several with a comma alone (\"gpu,cpu\")");
    }
    if (contains(name)) {
      throw InputError(kKey, "lists partition \"" + std::string(name) + "\" twice: list it once");
    }
    names_.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
}

bool ElasticPartitions::contains(std::string_view partition) const {
  return std::find(names_.begin(), names_.end(), partition) != names_.end();
}

std::string ElasticPartitions::joined() const {
  std::string text;
  for (const std::string& name : names_) text += (text.empty() ? "" : ",") + name;
  return text;
}

}  // namespace gaptrain::core
