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

std::string Table::formatLine(llvm::ArrayRef<std::string> cells,
                              llvm::ArrayRef<size_t> widths) const {
  std::string line;
  for (size_t column = 0; column < columns.size(); ++column) {
    const std::string &cell = cells[column];
    if (column > 0)
      line += "  ";
    if (columns[column].align == Align::Right)
      line += fmt::format("{:>{}}", cell, widths[column]);
    else if (column + 1 < columns.size())
      line += fmt::format("{:<{}}", cell, widths[column]);
    else
      line += cell; // No trailing blanks after the last column.
  }
  return line;
}

void Table::printHeader(std::FILE *out, llvm::ArrayRef<size_t> widths) const {
  std::vector<std::string> headers;
  for (const Column &column : columns)
    headers.push_back(column.header);
  fmt::print(out, "{}\n", formatLine(headers, widths));
}

void Table::printRow(std::FILE *out, llvm::ArrayRef<std::string> cells,
                     llvm::ArrayRef<size_t> widths) const {
  assert(cells.size() == columns.size() && "one cell per column");
  fmt::print(out, "{}\n", formatLine(cells, widths));
}

void Table::print(std::FILE *out) const {
  std::vector<size_t> widths;
  for (size_t column = 0; column < columns.size(); ++column)
    widths.push_back(getWidth(column));
  printHeader(out, widths);
  for (const std::vector<std::string> &row : rows)
    printRow(out, row, widths);
}
