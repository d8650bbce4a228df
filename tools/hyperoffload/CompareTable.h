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

/// A table printed a row at a time, as its rows come (a policy or a sweep
/// point takes a while): its header before the first row, then each new
/// row. The rows are not known yet, so each column is as wide as its
/// header or the widest cell it may hold (ComparisonTable::Column::widest).
class StreamedComparisonTable {
public:
  /// With `withTitle`, the table's title and bounds come before its header.
  StreamedComparisonTable(std::FILE *out, bool withTitle)
      : out(out), withTitle(withTitle) {}

  /// Prints the rows of `cells` not printed yet, and flushes.
  void update(const ComparisonTable &cells);
  /// Prints the rows left and then the table's notes.
  void finish(const ComparisonTable &cells);

private:
  std::FILE *out;
  bool withTitle;
  size_t printed = 0;
};

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
