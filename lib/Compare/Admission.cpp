//===- Admission.cpp - How many sequences vLLM runs at once ---------------===//

#include "hyperoffload/Compare/Admission.h"

#include "hyperoffload/Simulation/SteppedSimulation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ho;

/// The step time of `body`'s paged run when it keeps every KV block on the
/// device within the budget; none when it does not.
static FailureOr<std::optional<double>>
runWithEveryBlockResident(Block &body, const Target &target,
                          const SimulationOptions &simulation,
                          unsigned routingSteps) {
  FailureOr<SimulationResult> run = simulate(body, target, simulation);
  if (failed(run))
    return failure();
  bool loadsBlocks = false;
  for (MemoryTier tier : {MemoryTier::pool, MemoryTier::host, MemoryTier::disk})
    loadsBlocks |= run->getTraffic(tier, Direction::ToDevice).bytes > 0;
  if (run->notRunnable || run->outOfMemory || loadsBlocks)
    return std::optional<double>();
  if (!hasRunTimeSelections(body))
    return std::optional<double>(run->stepTime);
  FailureOr<StepStatistics> steps =
      simulateSteps(body, target, simulation, routingSteps);
  if (failed(steps))
    return failure();
  return std::optional<double>(steps->mean);
}

FailureOr<Admission> ho::admitBatch(MLIRContext &context,
                                    const workloads::WorkloadOptions &workload,
                                    const Target &target,
                                    SimulationOptions simulation,
                                    unsigned routingSteps) {
  simulation.mode = ExecutionMode::Paged;
  simulation.allocator = AllocatorKind::Paged;
  simulation.recordTimeline = false;
  Admission admission;
  admission.requested = workload.batch;
  // Fewer sequences never need more memory, so the first batch from the
  // top that fits is the largest.
  for (int64_t batch = workload.batch; batch >= 1; --batch) {
    workloads::WorkloadOptions options = workload;
    options.batch = batch;
    llvm::Expected<OwningOpRef<ModuleOp>> module =
        workloads::buildWorkload(context, options);
    if (!module)
      return emitError(UnknownLoc::get(&context))
             << "cannot build the batch of " << batch
             << " that vLLM's admission tries: "
             << llvm::toString(module.takeError());
    auto functions = (**module).getOps<func::FuncOp>();
    if (functions.empty())
      return emitError(UnknownLoc::get(&context))
             << "the batch of " << batch << " has no function to simulate";
    Block &body = (*functions.begin()).getBody().front();
    FailureOr<std::optional<double>> step =
        runWithEveryBlockResident(body, target, simulation, routingSteps);
    if (failed(step))
      return failure();
    if (!*step)
      continue;
    admission.admitted = batch;
    admission.stepTime = **step;
    // A decode step generates one token per sequence.
    admission.tokensPerSecond = batch / admission.stepTime;
    break;
  }
  return admission;
}
