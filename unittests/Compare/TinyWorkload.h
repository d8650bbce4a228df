//===- TinyWorkload.h - LLaMA3-tiny decode for the comparison tests -------===//

#ifndef HYPEROFFLOAD_UNITTESTS_COMPARE_TINYWORKLOAD_H
#define HYPEROFFLOAD_UNITTESTS_COMPARE_TINYWORKLOAD_H

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Workloads/Workloads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

namespace mlir::ho {

/// A fixture with LLaMA3-tiny decode built: 7.6 MB without offload, so a
/// 5 MB budget forces offload.
class TinyWorkloadTest : public ::testing::Test {
protected:
  TinyWorkloadTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
    workloads::WorkloadOptions options;
    options.model = "llama3-tiny";
    llvm::Expected<OwningOpRef<ModuleOp>> built =
        workloads::buildWorkload(context, options);
    EXPECT_TRUE(static_cast<bool>(built));
    if (built)
      module = std::move(*built);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

} // namespace mlir::ho

#endif // HYPEROFFLOAD_UNITTESTS_COMPARE_TINYWORKLOAD_H
