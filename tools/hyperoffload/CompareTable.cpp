//===- CompareTable.cpp - Comparisons as text tables ----------------------===//

#include "CompareTable.h"
#include "Table.h"

#include "hyperoffload/Compare/ComparisonTable.h"

#include <fmt/format.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

void cli::printComparisonHeader(std::FILE *out, const ComparisonTable &cells) {
  fmt::print(out, "{}\n{}\n\n", cells.title, cells.bounds);
}

static Table makeTable(const ComparisonTable &cells) {
  std::vector<Table::Column> columns;
  for (const ComparisonTable::Column &column : cells.columns)
    columns.push_back({column.header, column.alignRight ? Table::Align::Right
                                                        : Table::Align::Left});
  return Table(std::move(columns));
}

void cli::printComparisonTable(std::FILE *out, const ComparisonTable &cells,
                               bool withHeader) {
  if (withHeader)
    printComparisonHeader(out, cells);
  Table table = makeTable(cells);
  for (const std::vector<std::string> &row : cells.rows)
    table.addRow(row);
  table.print(out);
  for (const std::string &note : cells.notes)
    fmt::print(out, "{}\n", note);
}

void cli::StreamedComparisonTable::update(const ComparisonTable &cells) {
  Table table = makeTable(cells);
  std::vector<size_t> widths;
  for (const ComparisonTable::Column &column : cells.columns)
    widths.push_back(std::max(column.header.size(), column.widest));
  if (printed == 0 && !cells.rows.empty()) {
    if (withTitle)
      printComparisonHeader(out, cells);
    table.printHeader(out, widths);
  }
  for (; printed < cells.rows.size(); ++printed)
    table.printRow(out, cells.rows[printed], widths);
  std::fflush(out);
}

void cli::StreamedComparisonTable::finish(const ComparisonTable &cells) {
  update(cells);
  for (const std::string &note : cells.notes)
    fmt::print(out, "{}\n", note);
  std::fflush(out);
}
