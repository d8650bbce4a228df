//===- Pipeline.cpp - The HyperOffload pass pipeline ----------------------===//

#include "hyperoffload/Transforms/Pipeline.h"

#include "hyperoffload/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::ho;

/// The options of one pass of the pipeline, with the pipeline's hardware
/// and budget.
template <typename PassOptions>
static PassOptions
withTargetAndBudget(const HyperOffloadPipelineOptions &options) {
  return getTargetAndBudgetOptions<PassOptions>(options.hw, options.hwOverrides,
                                                options.budget);
}

void ho::buildHyperOffloadPipeline(OpPassManager &pm,
                                   const HyperOffloadPipelineOptions &options) {
  // An input the planner cannot take fails before any planning.
  pm.addPass(createCheckPlannable());
  // Weights embedded as constants are planned like weights passed in.
  pm.addPass(createConstantsAsArguments());

  // A lower peak before planning means less to move.
  auto lowerPeak = withTargetAndBudget<RefineOrderOptions>(options);
  lowerPeak.hideStalls = false;
  pm.addPass(createRefineOrder(lowerPeak));

  auto plan = withTargetAndBudget<PlanOffloadOptions>(options);
  plan.policy = options.policy;
  plan.predictorAccuracy = options.predictorAccuracy;
  pm.addPass(createPlanOffload(plan));

  auto hideStalls = withTargetAndBudget<RefineOrderOptions>(options);
  hideStalls.lowerPeak = false;
  pm.addPass(createRefineOrder(hideStalls));

  pm.addPass(
      createAssignOffsets(withTargetAndBudget<AssignOffsetsOptions>(options)));
  pm.addPass(createVerifySchedule(
      withTargetAndBudget<VerifyScheduleOptions>(options)));
}

void ho::registerHyperOffloadPipeline() {
  PassPipelineRegistration<HyperOffloadPipelineOptions>(
      "hyperoffload",
      "Refine the order, plan transfers for a device-memory budget, assign "
      "static offsets and verify the schedule",
      buildHyperOffloadPipeline);
}
