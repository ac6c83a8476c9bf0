// The small pieces of SVG text the simulator's timeline (timeline_plot.hpp) and `gaptrain job
// --plot` (controller/cli/job_plot.hpp) both write: numbers, escaped text, axis tick steps.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gaptrain::sim::svg {

// `value` with `decimals` digits after the point, trailing zeros (and a bare point) dropped so
// tick labels read "6" and "0.5", not "6.000" and "0.500".
std::string number(double value, int decimals);

// Text for element content and attribute values. Control characters XML 1.0 forbids become '?'
// (a browser refuses the whole file over one).
std::string xml_escape(std::string_view text);

// The smallest step giving at most `max_ticks` intervals over `span`: a preferred one when
// any fits, else 1, 2 or 5 times a power of ten.
double tick_step(double span, int max_ticks, std::span<const double> preferred = {});

}  // namespace gaptrain::sim::svg
