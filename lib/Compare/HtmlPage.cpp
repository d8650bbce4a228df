//===- HtmlPage.cpp - The frame the HTML reports share --------------------===//

#include "HtmlPage.h"
#include "Svg.h"

using namespace mlir::ho;

static const char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin-bottom: 4px; }
h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #ddd; }
p.note { color: #555; max-width: 62em; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { text-align: left; background: #f4f4f4; }
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
// that show data), how many have a non-empty box, and the plot's size.
window.addEventListener('load', () => {
  const plots = {};
  for (const plot of document.querySelectorAll('svg.plot')) {
    const marks = plot.querySelectorAll('.mark');
    let drawn = 0;
    for (const mark of marks) {
      const box = mark.getBBox();
      if (box.width > 0 || box.height > 0) drawn++;
    }
    const size = plot.getBoundingClientRect();
    plots[plot.dataset.plot] = {marks: marks.length, drawn,
                                hot: plot.querySelectorAll('.mark.hot').length,
                                width: Math.round(size.width),
                                height: Math.round(size.height)};
  }
  document.getElementById('render-check').textContent = JSON.stringify(plots);
});
)js";

void html::writeFooter(llvm::raw_ostream &os) {
  os << "<pre id=\"render-check\"></pre>\n<script>" << kRenderCheck
     << "</script>\n</body>\n</html>\n";
}

void html::writeTable(llvm::raw_ostream &os, const ComparisonTable &table) {
  auto cellClass = [&](size_t column) {
    return table.columns[column].alignRight ? " class=\"right\"" : "";
  };
  os << "<table>\n<tr>";
  for (auto [i, column] : llvm::enumerate(table.columns))
    os << "<th" << cellClass(i) << ">" << svg::escape(column.header) << "</th>";
  os << "</tr>\n";
  for (const std::vector<std::string> &row : table.rows) {
    bool misses = !row.empty() && row.back() == "no";
    os << (misses ? "<tr class=\"misses\">" : "<tr>");
    for (auto [i, cell] : llvm::enumerate(row))
      os << "<td" << cellClass(i) << ">" << svg::escape(cell) << "</td>";
    os << "</tr>\n";
  }
  os << "</table>\n";
}
