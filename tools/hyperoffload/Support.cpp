//===- Support.cpp - Shared helpers of the hyperoffload tool --------------===//

#include "Support.h"

#include "hyperoffload/InitAll.h"
#include "hyperoffload/Interfaces/CostExternalModels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int ho::cli::reportError(const llvm::Twine &message) {
  llvm::errs() << "hyperoffload: error: " << message << "\n";
  return 1;
}

int ho::cli::reportError(llvm::Error error) {
  return reportError(llvm::toString(std::move(error)));
}

std::unique_ptr<MLIRContext> ho::cli::createContext() {
  DialectRegistry registry;
  registerHyperOffloadDialects(registry);
  // The graphs slice tensors (the K and V halves of a KV cache).
  registry.insert<func::FuncDialect, tensor::TensorDialect>();
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // Input files may use what hyperoffload-opt knows; those dialects load
  // when the parser meets them.
  context->appendDialectRegistry([] {
    DialectRegistry inputs;
    inputs.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                  linalg::LinalgDialect, memref::MemRefDialect, scf::SCFDialect,
                  tosa::TosaDialect>();
    registerCostExternalModels(inputs);
    return inputs;
  }());
  return context;
}
