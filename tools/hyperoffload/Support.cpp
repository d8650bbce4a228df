//===- Support.cpp - Shared helpers of the hyperoffload tool --------------===//

#include "Support.h"

#include "hyperoffload/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
  return context;
}
