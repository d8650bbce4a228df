//===- Pipeline.cpp - The HyperOffload pass pipeline ----------------------===//

#include "hyperoffload/Transforms/Pipeline.h"

#include "hyperoffload/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::ho;

void ho::buildHyperOffloadPipeline(OpPassManager &pm,
                                   const HyperOffloadPipelineOptions &options) {
  SmallVector<std::string> overrides(options.hwOverrides.begin(),
                                     options.hwOverrides.end());

  // A lower peak before planning means less to move.
  RefineOrderOptions lowerPeak;
  lowerPeak.hw = options.hw;
  lowerPeak.hwOverrides = overrides;
  lowerPeak.budget = options.budget;
  lowerPeak.hideStalls = false;
  pm.addPass(createRefineOrder(lowerPeak));

  PlanOffloadOptions plan;
  plan.hw = options.hw;
  plan.hwOverrides = overrides;
  plan.budget = options.budget;
  plan.policy = options.policy;
  pm.addPass(createPlanOffload(plan));

  RefineOrderOptions hideStalls;
  hideStalls.hw = options.hw;
  hideStalls.hwOverrides = overrides;
  hideStalls.budget = options.budget;
  hideStalls.lowerPeak = false;
  pm.addPass(createRefineOrder(hideStalls));

  AssignOffsetsOptions offsets;
  offsets.hw = options.hw;
  offsets.hwOverrides = overrides;
  offsets.budget = options.budget;
  pm.addPass(createAssignOffsets(offsets));

  VerifyScheduleOptions verify;
  verify.hw = options.hw;
  verify.hwOverrides = overrides;
  verify.budget = options.budget;
  pm.addPass(createVerifySchedule(verify));
}

void ho::registerHyperOffloadPipeline() {
  PassPipelineRegistration<HyperOffloadPipelineOptions>(
      "hyperoffload",
      "Plan transfers for a device-memory budget, assign static offsets and "
      "verify the schedule",
      buildHyperOffloadPipeline);
}
