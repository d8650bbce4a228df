//===- CompareTable.h - Comparisons as text tables --------------*- C++ -*-===//
//
// The cells of a comparison (one row per policy) or of a sweep (one row per
// point), as ComparisonTable formats them, printed as an aligned table.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H

#include <cstdio>
#include <vector>

namespace mlir::ho {
struct ComparisonTable;
} // namespace mlir::ho

namespace mlir::ho::cli {

/// Prints the table's title and its bounds line to `out`.
void printComparisonHeader(std::FILE *out, const ComparisonTable &cells);
/// Prints the table's header, as above unless `withHeader` is false (it was
/// printed before the work), then its rows and notes.
void printComparisonTable(std::FILE *out, const ComparisonTable &cells,
                          bool withHeader = true);

/// A table printed a row at a time, as its rows come (a sweep's points
/// take a while each): its title, bounds and header before the first row,
/// then each new row. Columns are as wide as their header or their
/// expected widest cell, whichever is wider; the rows are not known yet.
class StreamedComparisonTable {
public:
  /// `widths[i]`: the widest cell expected in column i.
  StreamedComparisonTable(std::FILE *out, std::vector<size_t> widths)
      : out(out), widths(std::move(widths)) {}

  /// Prints the rows of `cells` not printed yet, and flushes.
  void update(const ComparisonTable &cells);

private:
  std::FILE *out;
  std::vector<size_t> widths;
  size_t printed = 0;
};

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
