//===- SweepReport.cpp - A sweep as a self-contained HTML page ------------===//

#include "hyperoffload/Compare/HtmlReport.h"
#include "hyperoffload/Compare/PolicySweep.h"

#include "HtmlPage.h"
#include "Svg.h"

using namespace mlir;
using namespace mlir::ho;

/// One series per policy of `metric` against the swept value, with a dot
/// per point, hollow where the run does not fit.
template <typename Metric>
static std::vector<svg::Series> getPolicySeries(const PolicySweep &sweep,
                                                Metric metric) {
  std::vector<svg::Series> series;
  for (const SweepPoint &point : sweep.points) {
    for (auto [i, run] : llvm::enumerate(point.comparison.runs)) {
      if (series.size() <= i) {
        series.push_back({stringifyComparedPolicy(run.policy).str(),
                          getPolicyColor(run.policy).str()});
        series.back().dots = true;
      }
      std::optional<double> value = metric(point.comparison, run);
      if (!value)
        continue;
      series[i].points.push_back({point.value, *value});
      series[i].hollow.push_back(!point.comparison.fits(run));
    }
  }
  return series;
}

void ho::writeSweepHtml(llvm::raw_ostream &os, const PolicySweep &sweep,
                        llvm::StringRef command) {
  ComparisonTable table = tabulateSweep(sweep);
  html::writeHeader(os, "HyperOffload: " + table.title);
  os << "<h1>Sweep: " << svg::escape(table.title) << "</h1>\n"
     << "<p class=\"note\"><code>" << svg::escape(command)
     << "</code><br>Each point re-plans and re-scores every policy with "
     << svg::escape(sweep.axis.field)
     << " set to its value. Hollow dots: the run does not fit the "
        "budget.</p>\n<div class=\"plots\">\n";

  svg::LineChart slowdown;
  slowdown.name = "sweep-slowdown";
  slowdown.title = "Slowdown against no offload at the same point";
  slowdown.xLabel = sweep.axis.field;
  slowdown.yLabel = "step time / no offload";
  slowdown.yUnit = {1, "x"};
  slowdown.width = 640;
  slowdown.height = 320;
  slowdown.series = getPolicySeries(
      sweep, [](const PolicyComparison &comparison, const PolicyRun &run) {
        return comparison.getSlowdown(run);
      });
  svg::writeLineChart(os, slowdown);

  svg::LineChart step = slowdown;
  step.name = "sweep-step-time";
  step.title = "Step time";
  step.yLabel = "step time";
  double longest = 0;
  for (const SweepPoint &point : sweep.points)
    for (const PolicyRun &run : point.comparison.runs)
      longest = std::max(longest, run.result.stepTime);
  step.yUnit = svg::chooseTimeUnit(longest);
  step.series = getPolicySeries(
      sweep, [](const PolicyComparison &, const PolicyRun &run) {
        return std::optional<double>(run.result.stepTime);
      });
  svg::writeLineChart(os, step);
  os << "</div>\n<h2>Every point</h2>\n<p class=\"note\">"
     << svg::escape(table.bounds) << "</p>\n";
  html::writeTable(os, table);
  html::writeFooter(os);
}
