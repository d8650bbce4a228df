//===- CompareTable.h - Comparisons as text tables --------------*- C++ -*-===//
//
// The cells of a comparison (one row per policy) or of a sweep (one row per
// point), as ComparisonTable formats them, printed as an aligned table.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H

#include <cstdio>

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

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
