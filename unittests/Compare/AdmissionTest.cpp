//===- AdmissionTest.cpp - How many sequences vLLM runs at once -----------===//

#include "hyperoffload/Compare/Admission.h"

#include "hyperoffload/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class AdmissionTest : public ::testing::Test {
protected:
  AdmissionTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
    workload.model = "llama3-tiny";
    workload.batch = 4;
    workload.sequence = 8192;
    simulation.mode = ExecutionMode::Paged;
    simulation.allocator = AllocatorKind::Paged;
    simulation.recordTimeline = false;
  }

  /// The paged run of `batch` sequences with every block resident: its
  /// peak and step.
  SimulationResult runPaged(int64_t batch) {
    workloads::WorkloadOptions options = workload;
    options.batch = batch;
    llvm::Expected<OwningOpRef<ModuleOp>> module =
        workloads::buildWorkload(context, options);
    EXPECT_TRUE(static_cast<bool>(module));
    SimulationOptions roomy = simulation;
    roomy.budget = 0;
    FailureOr<SimulationResult> result =
        simulate((*(**module).getOps<func::FuncOp>().begin()).getBody().front(),
                 target, roomy);
    EXPECT_TRUE(succeeded(result));
    return *result;
  }

  Admission admit(int64_t budget) {
    SimulationOptions options = simulation;
    options.budget = budget;
    FailureOr<Admission> admission =
        admitBatch(context, workload, target, options, /*routingSteps=*/1);
    EXPECT_TRUE(succeeded(admission));
    return succeeded(admission) ? *admission : Admission();
  }

  MLIRContext context;
  workloads::WorkloadOptions workload;
  SimulationOptions simulation;
  Target target = cantFail(getTargetPreset("ascend910c-supernode"));
};

// At the peak of two sequences with every block on the device, vLLM runs
// two of the four and preempts the others: it generates two tokens per
// step of that batch.
TEST_F(AdmissionTest, RunsTheLargestBatchWhoseBlocksFit) {
  SimulationResult two = runPaged(2), three = runPaged(3);
  ASSERT_LT(two.peakFootprintBytes, three.peakFootprintBytes);
  Admission admission = admit(two.peakFootprintBytes);
  EXPECT_EQ(admission.requested, 4);
  EXPECT_EQ(admission.admitted, 2);
  EXPECT_DOUBLE_EQ(admission.stepTime, two.stepTime);
  EXPECT_DOUBLE_EQ(admission.tokensPerSecond, 2 / two.stepTime);
  // A byte less and the second sequence's blocks no longer fit.
  EXPECT_EQ(admit(two.peakFootprintBytes - 1).admitted, 1);
  EXPECT_EQ(admit(runPaged(4).peakFootprintBytes).admitted, 4);
}

TEST_F(AdmissionTest, NothingRunsWhenTheWeightsDoNotFit) {
  Admission admission = admit(1024);
  EXPECT_EQ(admission.admitted, 0);
  EXPECT_EQ(admission.tokensPerSecond, 0);
}
} // namespace
