//===- CompareTable.h - A policy comparison as a text table -----*- C++ -*-===//
//
// One row per policy: peak device memory and its change against no
// offload, step time and slowdown, stalls, compactions, bytes moved per link
// direction, the gap to the time lower bound and whether the run fit.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H

#include <cstdio>

namespace mlir::ho {
struct PolicyComparison;
} // namespace mlir::ho

namespace mlir::ho::cli {

/// Prints what was compared, the lower bounds and the table to `out`.
void printComparison(std::FILE *out, const PolicyComparison &comparison);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_COMPARETABLE_H
