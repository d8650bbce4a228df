//===- PolicySweep.h - Every policy across a range of hardware --*- C++ -*-===//
//
// A sweep changes one hardware field over a range of values and, at each
// value, re-plans and re-scores every policy on the same graph: the
// bandwidth-robustness curve of docs/Results.md is a sweep of the link
// bandwidth. Any field an override can set can be swept (docs/Hardware.md).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_COMPARE_POLICYSWEEP_H
#define HYPEROFFLOAD_COMPARE_POLICYSWEEP_H

#include "hyperoffload/Compare/ComparisonTable.h"
#include "hyperoffload/Compare/PolicyComparison.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// The field a sweep varies and the values it takes, in order.
struct SweepAxis {
  std::string field;
  std::vector<double> values;
};

/// The most points one sweep may have.
constexpr size_t kMaxSweepPoints = 1000;

/// Parses "FIELD=LO:HI:STEP" (LO, LO+STEP, ... up to HI inclusive) or
/// "FIELD=V1,V2,...". The field is checked when the sweep runs, against the
/// target; here only the form and the numbers are.
llvm::Expected<SweepAxis> parseSweepAxis(llvm::StringRef text);

/// The override that sets the axis' field to `value`: "FIELD=VALUE", with
/// the value written so that it reads back exactly.
std::string getSweepOverride(const SweepAxis &axis, double value);

struct SweepPoint {
  double value;
  PolicyComparison comparison;
};

struct PolicySweep {
  SweepAxis axis;
  std::vector<SweepPoint> points;
};

/// Compares the policies of `options` at every value of `axis`, the field
/// set by an override after those of `options`. `onPoint(sweep, total)` is
/// called after each point with the sweep so far, so that a caller can show
/// each point as it finishes. Fails, with the error emitted through the
/// context's diagnostics, when a value is not valid for the field or a
/// comparison fails.
FailureOr<PolicySweep> sweepPolicies(
    ModuleOp module, const ComparisonOptions &options, const SweepAxis &axis,
    llvm::function_ref<void(const PolicySweep &sweep, size_t total)> onPoint =
        nullptr);

/// The sweep as JSON: the schema version, the field, and each point's value
/// and comparison in the schema of comparisonToJSON (docs/Compare.md).
llvm::json::Value sweepToJSON(const PolicySweep &sweep);

/// One row per point: the value, then each policy's step time and slowdown
/// against no offload, marked "*" where the run does not fit.
ComparisonTable tabulateSweep(const PolicySweep &sweep);

/// One CSV row per point and policy, with a header row.
void writeSweepCSV(llvm::raw_ostream &os, const PolicySweep &sweep);

/// A self-contained page: the slowdown and step time of every policy
/// against the field's value (hollow dots where a run does not fit), and
/// the table.
void writeSweepHtml(llvm::raw_ostream &os, const PolicySweep &sweep,
                    llvm::StringRef command);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_COMPARE_POLICYSWEEP_H
