#include "default_scenario.hpp"

#include "simulator/workload_io.hpp"

namespace gaptrain::cli {

namespace embedded {
// Defined in the source cmake/embed_files.cmake generates at build time.
std::string_view kth_swf_gz();
std::string_view jobs_csv();
std::string_view curves_csv();
}  // namespace embedded

std::string default_swf_text() {
  return sim::gunzip(embedded::kth_swf_gz(), std::string(kDefaultTraceName));
}

std::string_view default_jobs_csv() {
  return embedded::jobs_csv();
}

std::string_view default_curves_csv() {
  return embedded::curves_csv();
}

}  // namespace gaptrain::cli
