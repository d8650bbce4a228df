//===- CompareTable.cpp - Comparisons as text tables ----------------------===//

#include "CompareTable.h"
#include "Table.h"

#include "hyperoffload/Compare/ComparisonTable.h"

#include "llvm/ADT/STLExtras.h"

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
  std::vector<size_t> columnWidths;
  for (auto [column, header] : llvm::enumerate(cells.columns))
    columnWidths.push_back(std::max(header.header.size(), column < widths.size()
                                                              ? widths[column]
                                                              : size_t(0)));
  if (printed == 0 && !cells.rows.empty()) {
    printComparisonHeader(out, cells);
    table.printHeader(out, columnWidths);
  }
  for (; printed < cells.rows.size(); ++printed)
    table.printRow(out, cells.rows[printed], columnWidths);
  std::fflush(out);
}
