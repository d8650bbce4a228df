//===- HtmlPage.cpp - The frame the HTML reports share --------------------===//

#include "HtmlPage.h"
#include "Svg.h"

#include <cstdio>

using namespace mlir::ho;

static const char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin-bottom: 4px; }
h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #ddd; }
p.note { color: #555; max-width: 62em; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { padding: 3px 6px; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { text-align: left; background: #f4f4f4; white-space: normal;
  vertical-align: bottom; font-size: 12px; }
td.right, th.right { text-align: right; }
tr.misses td { color: #999; }
.plots { display: flex; flex-wrap: wrap; gap: 8px 18px; }
svg.plot { background: #fff; overflow: visible; }
svg .title { font-size: 13px; font-weight: 600; }
svg .tick, svg .label, svg .row { font-size: 11px; fill: #444; }
svg .grid { stroke: #eee; }
svg .axis { stroke: #888; }
svg line.reference { stroke: #c62828; stroke-dasharray: 6 3; }
svg text.reference { font-size: 11px; fill: #c62828; }
svg line.budget { stroke: #000; stroke-width: 2.5; stroke-dasharray: 8 4; }
svg rect.budget-label { fill: #fff; fill-opacity: 0.85; }
svg text.budget { font-size: 11px; font-weight: 700; fill: #000; }
svg rect.hover { fill: transparent; }
svg rect.hover:hover { fill: rgba(0, 0, 0, 0.07); }
svg .peak line { stroke-linecap: round; vector-effect: non-scaling-stroke; }
svg polyline.misses { stroke-dasharray: 2 4; stroke-opacity: 0.6; }
figure.memory { margin: 0; }
figcaption { font-size: 11px; color: #555; max-width: 570px; margin-left: 8px; }
.legend { font-size: 12px; margin: 6px 0 10px; }
.legend span { margin-right: 16px; white-space: nowrap; }
.legend i, i.swatch { display: inline-block; width: 12px; height: 12px;
  vertical-align: -2px; margin-right: 5px; }
.legend i.line { height: 0; border-top: 2px solid #1565c0; }
.legend i.budget { width: 18px; height: 0; border-top: 2.5px dashed #000; }
div.table { overflow-x: auto; max-width: 100%; }
tr.best td { background: #e8f5e9; font-weight: 600; }
.badge { display: block; width: max-content; font-size: 10px;
  font-weight: 500; color: #fff; background: #2e7d32; border-radius: 3px;
  padding: 0 5px; }
.summary ul { max-width: 70em; padding-left: 20px; }
/* The shared time axis: a checkbox ahead of the report, and CSS that
   scales every run's data to the longest run's axis when it is checked. */
input.switch { position: absolute; opacity: 0; pointer-events: none; }
label.switch { cursor: pointer; user-select: none; font-size: 13px; }
label.switch::before { content: "\2610  "; }
#shared-time:checked ~ .report label.switch::before { content: "\2611  "; }
#shared-time:checked ~ .report g.timed { transform: scaleX(var(--share)); }
g.ticks-shared { display: none; }
#shared-time:checked ~ .report g.ticks-own { display: none; }
#shared-time:checked ~ .report g.ticks-shared { display: inline; }
#render-check { display: none; }
)css";

void html::writeHeader(llvm::raw_ostream &os, llvm::StringRef title) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
     << "<title>" << svg::escape(title) << "</title>\n<style>" << kStyle
     << "</style>\n</head>\n<body>\n";
}

static const char kRenderCheck[] = R"js(
// Records what the browser drew: for each plot, its marks (the elements
// that show data), how many have a non-empty box and how many a tooltip,
// and the plot's size; with the shared time axis off and on, the width of
// each run's data; how many tick labels overlap another on their line.
window.addEventListener('load', () => {
  const countOverlaps = (labels) => {
    const boxes = Array.from(labels, (t) => t.getBoundingClientRect())
                       .filter((b) => b.width > 0)
                       .sort((a, b) => a.y - b.y || a.x - b.x);
    let overlaps = 0;
    for (let i = 1; i < boxes.length; i++)
      if (Math.abs(boxes[i].y - boxes[i - 1].y) < 1 &&
          boxes[i].x < boxes[i - 1].right - 0.5)
        overlaps++;
    return overlaps;
  };
  const timedWidths = () => {
    const widths = {};
    for (const plot of document.querySelectorAll('svg.plot')) {
      const timed = plot.querySelector('g.timed');
      if (timed)
        widths[plot.dataset.plot] = timed.getBoundingClientRect().width;
    }
    return widths;
  };
  const plots = {};
  for (const plot of document.querySelectorAll('svg.plot')) {
    const marks = plot.querySelectorAll('.mark');
    let drawn = 0, titled = 0;
    for (const mark of marks) {
      const box = mark.getBBox();
      if (box.width > 0 || box.height > 0) drawn++;
      const title = mark.querySelector('title');
      if (title && title.textContent.trim()) titled++;
    }
    const size = plot.getBoundingClientRect();
    const count = (selector) => plot.querySelectorAll(selector).length;
    plots[plot.dataset.plot] = {
      marks: marks.length, drawn, titled, hot: count('.mark.hot'),
      bands: count('.mark.band'), hovers: count('rect.hover title'),
      budget: count('line.budget'), peak: count('.mark.peak'),
      colorbar: count('.mark.colorbar'), misses: count('.misses'),
      ticks: Array.from(plot.querySelectorAll('text.tick'))
                 .filter((t) => t.getBBox().width > 0)
                 .map((t) => t.textContent),
      tickOverlaps: countOverlaps(plot.querySelectorAll('text.tick')),
      width: Math.round(size.width), height: Math.round(size.height)};
  }
  const sharedTime = document.getElementById('shared-time');
  if (sharedTime) {
    const was = sharedTime.checked;
    sharedTime.checked = false;
    const own = timedWidths();
    sharedTime.checked = true;
    const shared = timedWidths();
    sharedTime.checked = was;
    for (const name in own)
      Object.assign(plots[name], {ownWidth: Math.round(own[name]),
                                  sharedWidth: Math.round(shared[name])});
  }
  for (const plot of document.querySelectorAll('svg.plot'))
    plots[plot.dataset.plot].labels =
        Array.from(plot.querySelectorAll('text.label'), (t) => t.textContent);
  // Whether each table is shown whole, without scrolling sideways.
  const tables = Array.from(document.querySelectorAll('div.table'),
                            (div) => ({width: div.scrollWidth,
                                       shown: div.clientWidth}));
  const best = document.querySelector('tr.best td');
  document.getElementById('render-check').textContent = JSON.stringify({
    plots, tables, best: best ? best.textContent : null,
    summary: document.querySelectorAll('.summary table.moves tr').length});
});
)js";

void html::writeFooter(llvm::raw_ostream &os) {
  os << "<pre id=\"render-check\"></pre>\n<script>" << kRenderCheck
     << "</script>\n</body>\n</html>\n";
}

namespace {
/// A unit a table column may be written in, and the decimals that
/// formatSeconds and formatBytes give it; smallest first.
struct CellUnit {
  llvm::StringLiteral suffix;
  double scale;
  int decimals;
};
constexpr CellUnit kTimeUnits[] = {
    {"us", 1e-6, 3}, {"ms", 1e-3, 3}, {"s", 1, 3}};
constexpr CellUnit kByteUnits[] = {{"B", 1, 0},
                                   {"KB", 1e3, 2},
                                   {"MB", 1e6, 2},
                                   {"GB", 1e9, 2},
                                   {"TB", 1e12, 2}};
constexpr CellUnit kBinaryByteUnits[] = {
    {"B", 1, 0},
    {"KiB", 1024.0, 2},
    {"MiB", 1024.0 * 1024, 2},
    {"GiB", 1024.0 * 1024 * 1024, 2},
    {"TiB", 1024.0 * 1024 * 1024 * 1024, 2}};
} // namespace

/// The value of a cell such as "12.345 ms" in the base unit, if its suffix
/// is one of `units`.
static std::optional<double> parseCell(llvm::StringRef cell,
                                       llvm::ArrayRef<CellUnit> units) {
  auto [number, suffix] = cell.rsplit(' ');
  double value;
  if (suffix.empty() || number.getAsDouble(value))
    return std::nullopt;
  for (const CellUnit &unit : units)
    if (suffix == unit.suffix)
      return value * unit.scale;
  return std::nullopt;
}

/// The cells of `column` in one of `units` (the one that shows the
/// largest as at least 1), zero as "0"; unchanged unless every cell that
/// is not "n/a" or empty has one of the units.
static void unifyUnits(std::vector<std::vector<std::string>> &rows,
                       size_t column, llvm::ArrayRef<CellUnit> units) {
  double largest = 0;
  bool any = false;
  for (const std::vector<std::string> &row : rows) {
    llvm::StringRef cell = row[column];
    if (cell.empty() || cell == "n/a")
      continue;
    std::optional<double> value = parseCell(cell, units);
    if (!value)
      return;
    largest = std::max(largest, *value);
    any = true;
  }
  if (!any)
    return;
  const CellUnit *unit = &units.front();
  for (const CellUnit &candidate : units)
    if (largest >= candidate.scale)
      unit = &candidate;
  for (std::vector<std::string> &row : rows) {
    std::optional<double> value = parseCell(row[column], units);
    if (!value)
      continue;
    if (*value == 0) {
      row[column] = "0";
      continue;
    }
    char text[48];
    std::snprintf(text, sizeof(text), "%.*f %s", unit->decimals,
                  *value / unit->scale, unit->suffix.data());
    row[column] = text;
  }
}

void html::writeTable(llvm::raw_ostream &os, const ComparisonTable &table,
                      std::optional<size_t> best) {
  auto cellClass = [&](size_t column) {
    return table.columns[column].alignRight ? " class=\"right\"" : "";
  };
  std::vector<std::vector<std::string>> rows = table.rows;
  for (size_t column = 0; column < table.columns.size(); ++column) {
    unifyUnits(rows, column, kTimeUnits);
    unifyUnits(rows, column, kByteUnits);
    unifyUnits(rows, column, kBinaryByteUnits);
  }
  os << "<div class=\"table\"><table>\n<tr>";
  for (auto [i, column] : llvm::enumerate(table.columns))
    os << "<th" << cellClass(i) << ">" << svg::escape(column.header) << "</th>";
  os << "</tr>\n";
  for (auto [index, row] : llvm::enumerate(rows)) {
    bool misses = !row.empty() && row.back() == "no";
    os << (best == index ? "<tr class=\"best\">"
           : misses      ? "<tr class=\"misses\">"
                         : "<tr>");
    for (auto [i, cell] : llvm::enumerate(row)) {
      os << "<td" << cellClass(i) << ">" << svg::escape(cell);
      if (i == 0 && best == index)
        os << " <span class=\"badge\">fastest that fits</span>";
      os << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
}
