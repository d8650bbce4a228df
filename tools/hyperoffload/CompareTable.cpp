//===- CompareTable.cpp - Comparisons as text tables ----------------------===//

#include "CompareTable.h"
#include "Table.h"

#include "hyperoffload/Compare/ComparisonTable.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::cli;

void cli::printComparisonHeader(std::FILE *out, const ComparisonTable &cells) {
  fmt::print(out, "{}\n{}\n\n", cells.title, cells.bounds);
}

void cli::printComparisonTable(std::FILE *out, const ComparisonTable &cells,
                               bool withHeader) {
  if (withHeader)
    printComparisonHeader(out, cells);
  std::vector<Table::Column> columns;
  for (const ComparisonTable::Column &column : cells.columns)
    columns.push_back({column.header, column.alignRight ? Table::Align::Right
                                                        : Table::Align::Left});
  Table table(std::move(columns));
  for (const std::vector<std::string> &row : cells.rows)
    table.addRow(row);
  table.print(out);
  for (const std::string &note : cells.notes)
    fmt::print(out, "{}\n", note);
}
