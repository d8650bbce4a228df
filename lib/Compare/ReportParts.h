//===- ReportParts.h - The sections of the comparison report ----*- C++ -*-===//
//
// Each section of the HTML comparison report in a file of its own; the page
// (HtmlReport.cpp) puts them together. Plots of time share one switch: the
// page's "same time axis" checkbox scales every run's data to the longest
// run's axis and swaps the ticks, in CSS, so the page needs no script.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_COMPARE_REPORTPARTS_H
#define HYPEROFFLOAD_LIB_COMPARE_REPORTPARTS_H

#include "Svg.h"

#include "hyperoffload/Compare/PolicyComparison.h"
#include "hyperoffload/Compare/TensorRoles.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::ho::report {

/// The width of the plots that span the page, in pixels.
inline constexpr double kWideWidth = 1180;

/// The id of the checkbox that puts every run on one time axis.
inline constexpr llvm::StringLiteral kSharedTimeId = "shared-time";

/// The longest step of the runs: the end of the shared time axis.
double getLongestStep(const PolicyComparison &comparison);

/// Opens the group that holds a run's data on a time axis from `left`
/// (pixels) that ends at its own step `end`; with the shared axis on, CSS
/// scales it by end / `sharedEnd`. Draw in it with x relative to `left`.
void openTimedGroup(llvm::raw_ostream &os, double left, double end,
                    double sharedEnd);
void closeTimedGroup(llvm::raw_ostream &os);

/// Time ticks under a plot from `left` to `right` at `y`: one set for the
/// run's own axis [0, end] and one for the shared axis [0, sharedEnd],
/// of which CSS shows one.
void writeTimeTicks(llvm::raw_ostream &os, double left, double right, double y,
                    double end, double sharedEnd);

/// The colour of a role's band in the memory charts.
llvm::StringRef getRoleColor(TensorRole role);

/// Device memory over time for every run: the live bytes stacked by role,
/// the allocator's footprint and the budget, on one byte axis; hover a
/// column for the largest tensors then.
void writeMemorySection(llvm::raw_ostream &os,
                        const PolicyComparison &comparison);

/// Stall and allocator time in slices of the step, the runs lined up by
/// the compute ops they had issued, on a log colour scale.
void writeStallHeatMap(llvm::raw_ostream &os,
                       const PolicyComparison &comparison);

/// Each run's compute, stalls and transfers per link, with the ops' names
/// on hover.
void writeTimelines(llvm::raw_ostream &os, const PolicyComparison &comparison);

/// What the run's plan did: what stays on the device, what moves over
/// which link, and why it fits.
void writePlanSummary(llvm::raw_ostream &os, const PolicyComparison &comparison,
                      const PolicyRun &run);

} // namespace mlir::ho::report

#endif // HYPEROFFLOAD_LIB_COMPARE_REPORTPARTS_H
