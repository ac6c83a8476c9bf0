// The one SVG writer of the simulator's timeline (timeline_plot.hpp) and `gaptrain job --plot`
// (controller/cli/job_plot.hpp): numbers, escaped text, axis tick steps, and the elements both
// draw with, each one line of the file. Coordinates are px, written to a tenth.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

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

// The document's start: the page, its title (a tooltip, and what a browser's tab shows) and a
// white background. The document ends with kClose.
std::string open(double width, double height, std::string_view title);
inline constexpr std::string_view kClose = "</svg>\n";

// `attributes` are written as given after the element's geometry (fill, stroke, ...); `title`,
// where taken, is the element's tooltip (empty: none).
std::string text(double x, double y, std::string_view content, std::string_view attributes = {});
std::string line(double x1, double y1, double x2, double y2, std::string_view attributes,
                 std::string_view title = {});
std::string rect(double x, double y, double width, double height, std::string_view attributes);
std::string polyline(std::span<const std::pair<double, double>> points,
                     std::string_view attributes);

}  // namespace gaptrain::sim::svg
