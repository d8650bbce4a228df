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

/// Prints the table's title, its bounds line and its rows to `out`.
void printComparisonTable(std::FILE *out, const ComparisonTable &cells);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
