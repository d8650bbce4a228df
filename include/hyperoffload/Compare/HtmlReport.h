//===- HtmlReport.h - Self-contained HTML reports ---------------*- C++ -*-===//
//
// One HTML file with inline SVG and CSS, no network and no script needed to
// see it: the comparison table with the fastest run that fits highlighted,
// what the plan did, device memory over time for each policy stacked by
// role on one byte axis, where in the step compute waited (a heat map, runs
// lined up op by op, on a log colour scale), and each run's timeline of
// compute, stalls and transfers per link; tooltips name the tensors and ops
// behind every mark. The sections are in lib/Compare (ReportParts.h).
// docs/Compare.md shows what each part means.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_HTMLREPORT_H
#define HYPEROFFLOAD_COMPARE_HTMLREPORT_H

#include "hyperoffload/Compare/PolicyComparison.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace ho {

/// Writes the report of `comparison`; its runs must have recorded their
/// timelines (ComparisonOptions::recordTimelines), or the plots are empty.
/// `command` is the command line that made it, shown at the top.
void writeComparisonHtml(llvm::raw_ostream &os,
                         const PolicyComparison &comparison,
                         llvm::StringRef command);

/// The colour a policy has in every plot.
llvm::StringRef getPolicyColor(ComparedPolicy policy);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_HTMLREPORT_H
