//===- Table.h - Aligned text tables for terminal output --------*- C++ -*-===//
//
// A header row and data rows, printed with every column padded to its
// widest cell and two spaces between columns.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_TABLE_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_TABLE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace mlir::ho::cli {

class Table {
public:
  enum class Align { Left, Right };
  struct Column {
    std::string header;
    Align align = Align::Left;
  };

  explicit Table(std::vector<Column> columns);

  /// Adds a row with one cell per column.
  void addRow(std::vector<std::string> cells);

  /// The width of `column`: its widest cell, header included.
  size_t getWidth(size_t column) const;
  /// Pads `column` to at least `width`, to line up with another table.
  void setMinWidth(size_t column, size_t width);

  void print(std::FILE *out) const;

  /// For a table printed a row at a time, as its rows come: the header, and
  /// then each row, with every column `widths[i]` wide (wider cells push
  /// the rest of their row right).
  void printHeader(std::FILE *out, llvm::ArrayRef<size_t> widths) const;
  void printRow(std::FILE *out, llvm::ArrayRef<std::string> cells,
                llvm::ArrayRef<size_t> widths) const;

private:
  std::string formatLine(llvm::ArrayRef<std::string> cells,
                         llvm::ArrayRef<size_t> widths) const;

  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<size_t> minWidths;
};

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_TABLE_H
