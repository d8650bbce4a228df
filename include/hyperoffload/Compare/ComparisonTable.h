//===- ComparisonTable.h - A policy comparison as rows of text --*- C++ -*-===//
//
// The cells that the text table of `hyperoffload compare` and the table of
// its HTML report show, formatted once so that both say the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_COMPARISONTABLE_H
#define HYPEROFFLOAD_COMPARE_COMPARISONTABLE_H

#include "hyperoffload/Compare/PolicyComparison.h"

#include <string>
#include <vector>

namespace mlir {
namespace ho {

struct ComparisonTable {
  struct Column {
    std::string header;
    bool alignRight = false;
    /// The widest cell the column may hold: what a table printed before its
    /// rows are known pads it to.
    size_t widest = 0;
  };
  /// "@main on ascend910c-supernode, budget 44.00 GB".
  std::string title;
  /// The lower bounds, in one line.
  std::string bounds;
  std::vector<Column> columns;
  /// One row per run, one cell per column.
  std::vector<std::vector<std::string>> rows;
  /// Lines under the table: the policies that could not run, and why.
  std::vector<std::string> notes;
};

/// Which link directions a comparison table has a column for.
enum class LinkColumns {
  /// Those some run moved bytes over: the table of finished runs.
  Used,
  /// Every one the target has: a table whose rows come as the runs finish.
  All,
};

/// Policy, peak, reduction, step time, slowdown, stalls, allocator stalls, the
/// bytes of each link direction (`links`), the gap to the time bound and
/// whether the run fit.
ComparisonTable tabulateComparison(const PolicyComparison &comparison,
                                   LinkColumns links = LinkColumns::Used);

/// For functions with ho.routed or ho.gather_blocks ops, each policy over
/// the drawn steps:
/// mean, median and 99th-percentile step (the slowest device's), the mean
/// against no offload's, device 0's mean, the expert and block hit rates,
/// the experts and blocks compute waited for, and whether every step fit.
/// None without.
std::optional<ComparisonTable>
tabulateRoutedSteps(const PolicyComparison &comparison);

/// For a decode workload compared with `paged`: vLLM's admitted batch and
/// every policy's whole batch, in tokens per second. None without.
std::optional<ComparisonTable>
tabulateAdmission(const PolicyComparison &comparison);

/// "+12.3%", with rounding noise shown as 0; "n/a" without a value.
std::string formatPercent(std::optional<double> fraction);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_COMPARISONTABLE_H
