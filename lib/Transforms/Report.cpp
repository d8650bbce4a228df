//===- Report.cpp - Simulate functions and report the results -------------===//

#include "hyperoffload/Transforms/Passes.h"

#include "PassTarget.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Simulation/Report.h"
#include "hyperoffload/Target/MemoryBudget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::ho {
#define GEN_PASS_DEF_REPORT
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

namespace {
struct ReportPass : public ho::impl::ReportBase<ReportPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  LogicalResult writeFile(StringRef path, StringRef text);
};
} // namespace

LogicalResult ReportPass::writeFile(StringRef path, StringRef text) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(getOperation().getLoc())
           << "cannot write '" << path << "': " << error;
  file->os() << text << "\n";
  file->keep();
  return success();
}

void ReportPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<Target> target = loadPassTarget(module, hw, hwOverrides);
  if (failed(target))
    return signalPassFailure();
  SimulationOptions options;
  options.allocator = allocator;
  options.mode = mode;
  options.recordTimeline = !traceFile.empty();
  FailureOr<int64_t> bytes = loadPassBudget(module, budget, *target);
  if (failed(bytes))
    return signalPassFailure();
  options.budget = *bytes;
  // Against no capacity, so that only sizes with a unit give blocks.
  llvm::Expected<int64_t> block = parseMemoryBudget(blockSize, 0);
  if (!block || *block <= 0) {
    if (!block)
      llvm::consumeError(block.takeError());
    emitError(module.getLoc())
        << "invalid block-size option '" << blockSize
        << "': expected a size with a unit, such as 64KiB";
    return signalPassFailure();
  }
  options.blockBytes = *block;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> summary =
      openOutputFile(output, &error);
  if (!summary) {
    emitError(module.getLoc()) << "cannot write '" << output << "': " << error;
    return signalPassFailure();
  }

  llvm::json::Object metrics;
  // The trace streams out as each function is simulated: a json::Value of a
  // long timeline (a paged run swaps blocks a million times) would take
  // gigabytes.
  std::string traceText;
  llvm::raw_string_ostream traceStream(traceText);
  llvm::json::OStream trace(traceStream, /*IndentSize=*/2);
  int64_t processId = 0;
  auto simulateFunctions = [&]() -> LogicalResult {
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      Block &body = function.getFunctionBody().front();
      FailureOr<SimulationResult> result = simulate(body, *target, options);
      if (failed(result))
        return failure();
      // The budget the simulator resolved, so that both assume the same.
      LowerBounds bounds = computeLowerBounds(body, *target, result->budget);
      summary->os() << "@" << function.getName() << " ";
      printSummary(summary->os(), *result, *target, options, &bounds,
                   getBudgetUnits(budget, result->budget));
      metrics[function.getName()] =
          metricsToJSON(*result, *target, options, &bounds);
      if (traceFile.empty())
        continue;
      // One trace process per function, named after it.
      ++processId;
      trace.object([&] {
        trace.attributeObject("args", [&] {
          trace.attribute("name", "@" + function.getName().str());
        });
        trace.attribute("name", "process_name");
        trace.attribute("ph", "M");
        trace.attribute("pid", processId);
      });
      writeChromeTraceEvents(trace, *result, processId);
    }
    return success();
  };
  LogicalResult simulated = success();
  trace.object([&] {
    trace.attribute("displayTimeUnit", "ms");
    trace.attributeArray("traceEvents",
                         [&] { simulated = simulateFunctions(); });
  });
  if (failed(simulated))
    return signalPassFailure();
  summary->keep();

  if (!jsonFile.empty() &&
      failed(writeFile(
          jsonFile,
          llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"functions", std::move(metrics)}}))
              .str())))
    return signalPassFailure();
  if (!traceFile.empty() && failed(writeFile(traceFile, traceText)))
    return signalPassFailure();
  markAllAnalysesPreserved();
}
