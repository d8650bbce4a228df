//===- PolicySweep.cpp - Every policy across a range of hardware ----------===//

#include "hyperoffload/Compare/PolicySweep.h"

#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::ho;
using llvm::StringRef;

static llvm::Error axisError(StringRef text, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + text + "': " + message);
}

static std::optional<double> parseValue(StringRef text) {
  double value;
  if (text.trim().getAsDouble(value) || !std::isfinite(value))
    return std::nullopt;
  return value;
}

/// `value` with at most 12 significant digits: what tables and CSV show.
static std::string formatValue(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.12g", value);
  return text;
}

/// `value` rounded to 12 significant digits, so that LO + i * STEP reads
/// 0.3 and not 0.30000000000000004.
static double roundToPrintable(double value) {
  return std::strtod(formatValue(value).c_str(), nullptr);
}

llvm::Expected<SweepAxis> ho::parseSweepAxis(StringRef text) {
  auto [field, range] = text.split('=');
  field = field.trim();
  if (!text.contains('=') || field.empty() || range.trim().empty())
    return axisError(text, "expected FIELD=LO:HI:STEP or FIELD=V1,V2,..., "
                           "e.g. links.host.bandwidth_gbps=10:400:10");
  SweepAxis axis{field.str(), {}};
  SmallVector<StringRef> parts;
  if (range.contains(':')) {
    range.split(parts, ':');
    if (parts.size() != 3)
      return axisError(text, "expected LO:HI:STEP, got '" + range + "'");
    std::optional<double> lo = parseValue(parts[0]), hi = parseValue(parts[1]),
                          step = parseValue(parts[2]);
    if (!lo || !hi || !step)
      return axisError(text, "LO, HI and STEP must be numbers");
    if (*hi < *lo)
      return axisError(text, "HI is below LO");
    if (*step <= 0)
      return axisError(text, "STEP must be positive");
    // A little slack so that HI itself is reached despite rounding.
    double count = std::floor((*hi - *lo) / *step * (1 + 1e-12)) + 1;
    // Compared as a double: a tiny STEP makes a count no integer holds.
    if (!(count <= kMaxSweepPoints))
      return axisError(text,
                       llvm::formatv("{0} points; at most {1} are "
                                     "allowed",
                                     formatValue(count), kMaxSweepPoints));
    for (size_t i = 0; i < count; ++i)
      axis.values.push_back(roundToPrintable(*lo + i * *step));
    return axis;
  }
  range.split(parts, ',');
  for (StringRef part : parts) {
    std::optional<double> value = parseValue(part);
    if (!value)
      return axisError(text, "'" + part.trim() + "' is not a number");
    axis.values.push_back(*value);
  }
  if (axis.values.size() > kMaxSweepPoints)
    return axisError(text, "too many points");
  return axis;
}

std::string ho::getSweepOverride(const SweepAxis &axis, double value) {
  // The fewest digits, from 12, that read back as `value`.
  char text[32];
  for (int digits = 12; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  return axis.field + "=" + text;
}

FailureOr<PolicySweep> ho::sweepPolicies(
    ModuleOp module, const ComparisonOptions &options, const SweepAxis &axis,
    llvm::function_ref<void(const PolicySweep &, size_t)> onPoint) {
  PolicySweep sweep{axis, {}};
  for (double value : axis.values) {
    ComparisonOptions point = options;
    point.hwOverrides.push_back(getSweepOverride(axis, value));
    FailureOr<PolicyComparison> comparison = comparePolicies(module, point);
    if (failed(comparison))
      return failure();
    sweep.points.push_back({value, std::move(*comparison)});
    if (onPoint)
      onPoint(sweep, axis.values.size());
  }
  return sweep;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// The policies of the sweep's runs, in their order (the same at each point).
static std::vector<ComparedPolicy> getSweptPolicies(const PolicySweep &sweep) {
  std::vector<ComparedPolicy> policies;
  if (!sweep.points.empty())
    for (const PolicyRun &run : sweep.points.front().comparison.runs)
      policies.push_back(run.policy);
  return policies;
}

ComparisonTable ho::tabulateSweep(const PolicySweep &sweep) {
  ComparisonTable table;
  if (!sweep.points.empty()) {
    const PolicyComparison &first = sweep.points.front().comparison;
    table.title = llvm::formatv("@{0} on {1}, budget {2}, varying {3}",
                                first.function, first.target.name,
                                formatBytes(first.budget, first.getByteUnits()),
                                sweep.axis.field)
                      .str();
  }
  table.bounds = "step time (slowdown against no offload at the same point); "
                 "* the run does not fit the budget";
  // The widest cells: the values as written, and "999.999 ms (999.99x)*".
  size_t widestValue = 0;
  for (double value : sweep.axis.values)
    widestValue = std::max(widestValue, formatValue(value).size());
  table.columns.push_back(
      {llvm::StringRef(sweep.axis.field).upper(), true, widestValue});
  for (ComparedPolicy policy : getSweptPolicies(sweep))
    table.columns.push_back(
        {stringifyComparedPolicy(policy).upper(), true, 21});
  for (const SweepPoint &point : sweep.points) {
    std::vector<std::string> row = {formatValue(point.value)};
    for (const PolicyRun &run : point.comparison.runs) {
      std::optional<double> slowdown = point.comparison.getSlowdown(run);
      row.push_back(
          llvm::formatv("{0} ({1}){2}", formatSeconds(run.result.stepTime),
                        slowdown ? llvm::formatv("{0:f2}x", *slowdown).str()
                                 : std::string("n/a"),
                        point.comparison.fits(run) ? " " : "*")
              .str());
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

llvm::json::Value ho::sweepToJSON(const PolicySweep &sweep) {
  llvm::json::Array points;
  for (const SweepPoint &point : sweep.points)
    points.push_back(
        llvm::json::Object{{"value", point.value},
                           {"comparison", comparisonToJSON(point.comparison)}});
  return llvm::json::Object{{"version", kComparisonSchemaVersion},
                            {"field", sweep.axis.field},
                            {"points", std::move(points)}};
}

void ho::writeSweepCSV(llvm::raw_ostream &os, const PolicySweep &sweep) {
  os << "field,value,policy,step_time_s,slowdown,peak_footprint_bytes,fits,"
        "stall_time_s,allocator_stalls,allocator_stall_time_s,time_bound_s,"
        "gap_to_time_bound\n";
  auto optional = [](std::optional<double> value) {
    return value ? llvm::formatv("{0}", formatValue(*value)).str()
                 : std::string();
  };
  for (const SweepPoint &point : sweep.points) {
    const PolicyComparison &comparison = point.comparison;
    for (const PolicyRun &run : comparison.runs) {
      const SimulationResult &result = run.result;
      os << sweep.axis.field << ',' << formatValue(point.value) << ','
         << stringifyComparedPolicy(run.policy) << ','
         << formatValue(result.stepTime) << ','
         << optional(comparison.getSlowdown(run)) << ','
         << result.peakFootprintBytes << ','
         << (comparison.fits(run) ? "true" : "false") << ','
         << formatValue(result.stallTime) << ',' << result.allocatorStalls
         << ',' << formatValue(result.allocatorStallTime) << ','
         << formatValue(comparison.getTimeBound(run)) << ','
         << optional(comparison.getGap(run)) << '\n';
    }
  }
}
