// `gaptrain job ID --plot FILE.svg`: one job's history as a self-contained SVG, its node count
// over time above and its progress rate (samples/s between reports) below, on one time axis,
// each resize a dashed line. Pure: the daemon's job view in, SVG text out.
#pragma once

#include <json/value.h>

#include <string>

namespace gaptrain::cli {

// `view` is the daemon's job object (controller/daemon/job_view.hpp).
std::string job_plot_svg(const Json::Value& view);

}  // namespace gaptrain::cli
