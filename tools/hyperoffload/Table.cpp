//===- Table.cpp - Aligned text tables for terminal output ----------------===//

#include "Table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

using namespace mlir::ho::cli;

Table::Table(std::vector<Column> columns)
    : columns(std::move(columns)), minWidths(this->columns.size(), 0) {}

void Table::addRow(std::vector<std::string> cells) {
  assert(cells.size() == columns.size() && "one cell per column");
  rows.push_back(std::move(cells));
}

size_t Table::getWidth(size_t column) const {
  size_t width = std::max(minWidths[column], columns[column].header.size());
  for (const std::vector<std::string> &row : rows)
    width = std::max(width, row[column].size());
  return width;
}

void Table::setMinWidth(size_t column, size_t width) {
  minWidths[column] = width;
}

void Table::print(std::FILE *out) const {
  std::vector<size_t> widths;
  for (size_t column = 0; column < columns.size(); ++column)
    widths.push_back(getWidth(column));

  auto printRow = [&](auto cellOf) {
    std::string line;
    for (size_t column = 0; column < columns.size(); ++column) {
      const std::string &cell = cellOf(column);
      if (column > 0)
        line += "  ";
      if (columns[column].align == Align::Right)
        line += fmt::format("{:>{}}", cell, widths[column]);
      else if (column + 1 < columns.size())
        line += fmt::format("{:<{}}", cell, widths[column]);
      else
        line += cell; // No trailing blanks after the last column.
    }
    fmt::print(out, "{}\n", line);
  };

  printRow([&](size_t column) -> const std::string & {
    return columns[column].header;
  });
  for (const std::vector<std::string> &row : rows)
    printRow([&](size_t column) -> const std::string & { return row[column]; });
}
