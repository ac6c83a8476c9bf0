#include "job_plot.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "simulator/svg_text.hpp"

namespace gaptrain::cli {

namespace {

namespace svg = sim::svg;
using svg::number;
using svg::tick_step;

constexpr double kLeft = 80.0;
constexpr double kWidth = 800.0;
constexpr double kPanelHeight = 180.0;
constexpr double kTop = 50.0;
constexpr double kGap = 50.0;
constexpr double kPageWidth = kLeft + kWidth + 30.0;
constexpr double kPageHeight = kTop + 2 * kPanelHeight + kGap + 50.0;
// Rates are averaged over at least this long, so reports a fraction of a second apart with
// whole-batch progress do not draw a comb.
constexpr double kRateWindowS = 5.0;

using Point = std::pair<double, double>;  // x, y (px)

struct Panel {
  double top = 0.0;
  double y_max = 1.0;
  std::string label;
};

class Axes {
 public:
  Axes(double t0, double t1) : t0_(t0), span_(std::max(t1 - t0, 1.0)) {}
  double x(double t) const { return kLeft + (t - t0_) / span_ * kWidth; }
  double y(const Panel& panel, double value) const {
    return panel.top + kPanelHeight - std::clamp(value / panel.y_max, 0.0, 1.0) * kPanelHeight;
  }
  double span() const { return span_; }
  double t0() const { return t0_; }

 private:
  double t0_;
  double span_;
};

std::string polyline(const std::vector<Point>& points, const char* colour) {
  return svg::polyline(points,
                       "fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"1.5\"");
}

std::string text(double x, double y, const std::string& anchor, const std::string& content) {
  return svg::text(x, y, content, "text-anchor=\"" + anchor + "\"");
}

std::string frame(const Axes& axes, const Panel& panel) {
  std::string out =
      svg::rect(kLeft, panel.top, kWidth, kPanelHeight, "fill=\"none\" stroke=\"#888\"");
  const double step = tick_step(panel.y_max, 4);
  for (double v = 0.0; v <= panel.y_max * 1.0001; v += step) {
    out += text(kLeft - 6.0, axes.y(panel, v) + 4.0, "end", number(v, 2));
  }
  out += text(kLeft, panel.top - 8.0, "start", panel.label);
  return out;
}

}  // namespace

std::string job_plot_svg(const Json::Value& view) {
  const Json::Value& nodes = view["nodes_over_time"];
  const Json::Value& progress = view["progress"];
  double t0 = view["now"].asDouble();
  double t1 = view["ended_at"].isNull() ? t0 : view["ended_at"].asDouble();
  for (const Json::Value* series : {&nodes, &progress}) {
    for (const Json::Value& p : *series) {
      t0 = std::min(t0, p[0].asDouble());
      t1 = std::max(t1, p[0].asDouble());
    }
  }
  const Axes axes(t0, t1);

  // Nodes: a step line, held to the end of the view.
  std::vector<Point> node_points;
  int max_nodes = 1;
  for (Json::ArrayIndex i = 0; i < nodes.size(); ++i) {
    max_nodes = std::max(max_nodes, nodes[i][1].asInt());
  }
  const Panel node_panel{kTop, static_cast<double>(max_nodes), "nodes"};
  for (Json::ArrayIndex i = 0; i < nodes.size(); ++i) {
    const double y = axes.y(node_panel, nodes[i][1].asDouble());
    const double next = i + 1 < nodes.size() ? nodes[i + 1][0].asDouble() : t1;
    node_points.push_back({axes.x(nodes[i][0].asDouble()), y});
    node_points.push_back({axes.x(next), y});
  }

  // Progress rate: samples/s over windows of at least kRateWindowS.
  std::vector<std::pair<double, double>> rates;  // (window end, rate)
  Json::ArrayIndex from = 0;
  for (Json::ArrayIndex i = 1; i < progress.size(); ++i) {
    const double dt = progress[i][0].asDouble() - progress[from][0].asDouble();
    if (dt < kRateWindowS) continue;
    const double done = progress[i][1].asDouble() - progress[from][1].asDouble();
    rates.emplace_back(progress[i][0].asDouble(), std::max(0.0, done / dt));
    from = i;
  }
  double max_rate = 1.0;
  for (const auto& [t, rate] : rates) max_rate = std::max(max_rate, rate);
  const Panel rate_panel{kTop + kPanelHeight + kGap, max_rate * 1.1, "samples/s"};
  std::vector<Point> rate_points;
  for (const auto& [t, rate] : rates) rate_points.push_back({axes.x(t), axes.y(rate_panel, rate)});

  const std::string title = "job " + std::to_string(view["job_id"].asUInt()) + " (" +
                            view["user"].asString() +
                            "): " + number(view["node_hours"].asDouble(), 2) + " node-hours, " +
                            number(view["resize_lost_s"].asDouble(), 0) + " s lost to resizes";
  std::string page = svg::open(kPageWidth, kPageHeight, title) + text(kLeft, 24.0, "start", title);
  page += frame(axes, node_panel) + frame(axes, rate_panel);
  for (const Json::Value& resize : view["resizes"]) {
    const double x = axes.x(resize["time"].asDouble());
    page += svg::line(x, kTop, x, rate_panel.top + kPanelHeight,
                      "stroke=\"#c33\" stroke-dasharray=\"4 3\"",
                      resize["kind"].asString() + ": " + resize["reason"].asString());
  }
  page += polyline(node_points, "#4e79a7") + polyline(rate_points, "#59a14f");
  const double tick = tick_step(axes.span(), 6);
  for (double s = 0.0; s <= axes.span() * 1.0001; s += tick) {
    page += text(axes.x(axes.t0() + s), rate_panel.top + kPanelHeight + 16.0, "middle",
                 number(s, 0) + " s");
  }
  page += svg::kClose;
  return page;
}

}  // namespace gaptrain::cli
