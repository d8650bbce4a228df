//===- Pipeline.h - The HyperOffload pass pipeline --------------*- C++ -*-===//
//
// Plan, place and check a schedule in one go: ho-refine-order to lower the
// peak, ho-plan-offload, ho-refine-order again to hide stalls,
// ho-assign-offsets and ho-verify-schedule, all for the same hardware and
// budget. Other compilers add it to their own pass managers with
// buildHyperOffloadPipeline; opt-style drivers get `--hyperoffload`.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TRANSFORMS_PIPELINE_H
#define HYPEROFFLOAD_TRANSFORMS_PIPELINE_H

#include "hyperoffload/Planning/OffloadPlan.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace ho {

struct HyperOffloadPipelineOptions
    : public PassPipelineOptions<HyperOffloadPipelineOptions> {
  Option<std::string> hw{*this, "hw",
                         llvm::cl::desc("Hardware preset or JSON file")};
  ListOption<std::string> hwOverrides{
      *this, "hw-set", llvm::cl::desc("Hardware fields to override")};
  Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("Device memory the schedule must fit in (48GiB, 0.75, "
                     "75%); the HBM capacity by default")};
  Option<OffloadPolicy> policy{
      *this, "policy", llvm::cl::desc("Planning policy"),
      llvm::cl::init(OffloadPolicy::HyperOffload),
      llvm::cl::values(
          clEnumValN(OffloadPolicy::HyperOffload, "hyperoffload",
                     "cost-model timing, only what the budget needs"),
          clEnumValN(OffloadPolicy::Naive, "naive",
                     "always offload, fetch right before use"),
          clEnumValN(OffloadPolicy::Distance, "distance",
                     "MindSpore's heuristic: distances in ops"),
          clEnumValN(OffloadPolicy::Window, "window",
                     "ZeRO-Infinity: fetch weights a few layers ahead"),
          clEnumValN(OffloadPolicy::PT2, "pt2",
                     "PyTorch activation offloading: saved activations out "
                     "and back"),
          clEnumValN(OffloadPolicy::Exact, "exact",
                     "the fastest plan that fits, searched on the simulator "
                     "(small functions)"))};
  Option<double> predictorAccuracy{
      *this, "predictor-accuracy",
      llvm::cl::desc("The fraction of experts an early prediction of a "
                     "router's picks gets right"),
      llvm::cl::init(0.9)};
};

/// Adds plan, offsets and verification to `pm` (on modules).
void buildHyperOffloadPipeline(OpPassManager &pm,
                               const HyperOffloadPipelineOptions &options);

/// Registers the pipeline as `--hyperoffload`.
void registerHyperOffloadPipeline();

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TRANSFORMS_PIPELINE_H
