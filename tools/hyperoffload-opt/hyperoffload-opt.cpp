//===- hyperoffload-opt.cpp - HyperOffload optimizer driver ---------------===//
//
// An mlir-opt-style driver: parses `.mlir` files, runs the requested passes
// and prints the result. It knows the `ho` dialect, every upstream dialect
// and extension (see InputDialects.h) and every HyperOffload pass.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/InputDialects.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::ho::test {
void registerTestBufferLivenessPass();
void registerTestCostOpInterfacePass();
} // namespace mlir::ho::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::ho::registerInputDialects(registry);

  // Generic clean-ups (canonicalize, cse, ...) to combine with our passes.
  mlir::registerTransformsPasses();
  mlir::ho::registerHyperOffloadPasses();
  mlir::ho::registerHyperOffloadPipeline();
  mlir::ho::test::registerTestBufferLivenessPass();
  mlir::ho::test::registerTestCostOpInterfacePass();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "HyperOffload optimizer driver\n", registry));
}
