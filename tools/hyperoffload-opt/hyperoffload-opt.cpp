//===- hyperoffload-opt.cpp - HyperOffload optimizer driver ---------------===//
//
// An mlir-opt-style driver: parses `.mlir` files, runs the requested passes
// and prints the result. It knows the `ho` dialect, the upstream dialects that
// front ends emit (func, arith, tensor, linalg, tosa, scf, bufferization),
// memref (for lowered plans) and every HyperOffload pass.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/InitAll.h"
#include "hyperoffload/Interfaces/CostExternalModels.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::ho::test {
void registerTestBufferLivenessPass();
void registerTestCostOpInterfacePass();
} // namespace mlir::ho::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::ho::registerHyperOffloadDialects(registry);
  registry.insert<mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::tosa::TosaDialect>();
  mlir::ho::registerCostExternalModels(registry);

  // Generic clean-ups (canonicalize, cse, ...) to combine with our passes.
  mlir::registerTransformsPasses();
  mlir::ho::registerHyperOffloadPasses();
  mlir::ho::registerHyperOffloadPipeline();
  mlir::ho::test::registerTestBufferLivenessPass();
  mlir::ho::test::registerTestCostOpInterfacePass();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "HyperOffload optimizer driver\n", registry));
}
