//===- Report.h - Summaries, metrics and traces of a simulation -*- C++ -*-===//

#ifndef HYPEROFFLOAD_SIMULATION_REPORT_H
#define HYPEROFFLOAD_SIMULATION_REPORT_H

#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Simulation/Simulator.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace ho {

/// Where a run in `mode` finds the caller's arguments: the runtimes count
/// each as having a copy in a tier (the reactive one) or write back only
/// the blocks a step dirtied (the paged one), and are held to the bound
/// that leaves arguments free; a schedule run as written places them once.
ArgumentResidence getArgumentResidence(ExecutionMode mode);

/// Writes a readable summary of `result`, with byte counts in `units`;
/// with `bounds`, also the lower bounds of the function and the gap of the
/// result to them.
void printSummary(llvm::raw_ostream &os, const SimulationResult &result,
                  const Target &target, const SimulationOptions &options,
                  const LowerBounds *bounds = nullptr,
                  ByteUnits units = ByteUnits::Decimal);

/// The metrics of `result` as JSON (schema in docs/CostModel.md); times in
/// seconds, sizes in bytes. With `bounds`, they include `lower_bounds`.
/// The link directions that carried a transfer, each with its bytes and
/// transfer count.
llvm::json::Array trafficToJSON(const SimulationResult &result);

llvm::json::Value metricsToJSON(const SimulationResult &result,
                                const Target &target,
                                const SimulationOptions &options,
                                const LowerBounds *bounds = nullptr);

/// Where an op is, for people: a named location by its name (the workloads
/// name every op after its layer), else file:line:column; "" for null.
std::string formatOpLocation(Operation *op);

/// The timeline in the Chrome trace-event format that Perfetto and
/// chrome://tracing open: one track per stream or link direction, device
/// memory as a counter track.
llvm::json::Value timelineToChromeTrace(const SimulationResult &result);

/// The most slices (and counter samples) one run's trace holds.
inline constexpr size_t kMaxTraceSlices = 50000;

/// Writes the events of that trace, in process `pid`, as elements of the
/// array `json` is writing: a track per stream and per queue of each link
/// direction, a flow from each stall to the transfer it waited for, and
/// device memory as a counter. A run with more than kMaxTraceSlices events
/// has neighbouring events of a kind on a track merged into one slice (its
/// args count them), so that no trace grows past tens of MB; the events are
/// streamed, never built as a json::Value, which for a million transfers
/// would take gigabytes.
void writeChromeTraceEvents(llvm::json::OStream &json,
                            const SimulationResult &result, int64_t pid);

/// Formats a duration in seconds for people ("12.3 ms").
std::string formatSeconds(double seconds);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_REPORT_H
