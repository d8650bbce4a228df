//===- SweepReport.cpp - A sweep as a self-contained HTML page ------------===//

#include "hyperoffload/Compare/HtmlReport.h"
#include "hyperoffload/Compare/PolicySweep.h"

#include "HtmlPage.h"
#include "Svg.h"

#include <algorithm>

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
        svg::Series policy;
        policy.name = stringifyComparedPolicy(run.policy).str();
        policy.color = getPolicyColor(run.policy).str();
        policy.dots = true;
        series.push_back(std::move(policy));
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

/// "links.bandwidth" and "GB/s" for "links.bandwidth_gbps": the field
/// without the unit its name ends in, and that unit (docs/Hardware.md).
static std::pair<std::string, svg::Unit> describeField(llvm::StringRef field) {
  static const std::pair<llvm::StringLiteral, llvm::StringLiteral> units[] = {
      {"_gbps", "GB/s"},
      {"_gib", "GiB"},
      {"_tflops", "TFLOP/s"},
      {"_us", "us"},
      {"_bytes", "B"}};
  for (auto [suffix, unit] : units) {
    size_t at = field.find(suffix);
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef rest = field.drop_front(at + suffix.size());
    if (!rest.empty() && !rest.starts_with("."))
      continue;
    return {(field.take_front(at) + rest).str(), svg::Unit{1, unit.str()}};
  }
  return {field.str(), svg::Unit{1, ""}};
}

/// Whether the values of `series` span enough decades for a log axis.
static bool spansDecades(llvm::ArrayRef<svg::Series> series, bool onX) {
  double lo = 0, hi = 0;
  bool first = true;
  for (const svg::Series &one : series)
    for (auto [x, y] : one.points) {
      double value = onX ? x : y;
      if (value <= 0)
        return false;
      lo = first ? value : std::min(lo, value);
      hi = first ? value : std::max(hi, value);
      first = false;
    }
  return !first && svg::spansDecades(lo, hi);
}

/// `table` with a row per policy and a column per point: narrower where
/// there are fewer points than policies.
static ComparisonTable transposeSweepTable(const ComparisonTable &table) {
  ComparisonTable transposed;
  transposed.title = table.title;
  transposed.bounds = table.bounds;
  transposed.notes = table.notes;
  transposed.columns.push_back(
      {"policy \\ " + llvm::StringRef(table.columns[0].header).lower()});
  for (const std::vector<std::string> &row : table.rows)
    transposed.columns.push_back({row[0], /*alignRight=*/true});
  for (size_t column = 1; column < table.columns.size(); ++column) {
    std::vector<std::string> row = {
        llvm::StringRef(table.columns[column].header).lower()};
    for (const std::vector<std::string> &point : table.rows)
      row.push_back(point[column]);
    transposed.rows.push_back(std::move(row));
  }
  return transposed;
}

void ho::writeSweepHtml(llvm::raw_ostream &os, const PolicySweep &sweep,
                        llvm::StringRef command) {
  ComparisonTable table = tabulateSweep(sweep);
  html::writeHeader(os, "HyperOffload: " + table.title);
  os << "<h1>Sweep: " << svg::escape(table.title) << "</h1>\n"
     << "<p class=\"note\"><code>" << svg::escape(command)
     << "</code><br>Each point re-plans and re-scores every policy with "
     << svg::escape(sweep.axis.field)
     << " set to its value. Hollow dots and faint dotted lines: the run "
        "does not fit the budget. An axis whose values span decades is on a "
        "log scale.</p>\n<div class=\"plots\">\n";
  auto [fieldName, fieldUnit] = describeField(sweep.axis.field);

  svg::LineChart slowdown;
  slowdown.name = "sweep-slowdown";
  slowdown.title = "Slowdown against no offload at the same point";
  slowdown.xLabel = fieldName;
  slowdown.xUnit = fieldUnit;
  slowdown.yLabel = "step time / no offload";
  slowdown.yUnit = {1, "x"};
  slowdown.width = 640;
  slowdown.height = 320;
  slowdown.series = getPolicySeries(
      sweep, [](const PolicyComparison &comparison, const PolicyRun &run) {
        return comparison.getSlowdown(run);
      });
  slowdown.xLog = spansDecades(slowdown.series, true);
  slowdown.yLog = spansDecades(slowdown.series, false);
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
  step.yLog = spansDecades(step.series, false);
  svg::writeLineChart(os, step);
  os << "</div>\n<h2>Every point</h2>\n<p class=\"note\">"
     << svg::escape(table.bounds) << "</p>\n";
  html::writeTable(os, table.rows.size() + 1 < table.columns.size()
                           ? transposeSweepTable(table)
                           : table);
  html::writeFooter(os);
}
