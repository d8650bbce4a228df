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
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int ho::cli::reportError(const llvm::Twine &message) {
  llvm::errs() << "hyperoffload: error: " << message << "\n";
  return 1;
}

int ho::cli::reportError(llvm::Error error) {
  return reportError(llvm::toString(std::move(error)));
}

static std::vector<std::string> &getArguments() {
  static std::vector<std::string> arguments;
  return arguments;
}

void ho::cli::setCommandLine(int argc, char **argv) {
  std::vector<std::string> &arguments = getArguments();
  arguments.clear();
  // The tool by its name, not by where it was run from.
  if (argc > 0)
    arguments.push_back(llvm::sys::path::filename(argv[0]).str());
  for (int i = 1; i < argc; ++i)
    arguments.push_back(argv[i]);
}

/// `argument`, in single quotes unless every character is shell-safe.
static std::string quoteForShell(llvm::StringRef argument) {
  auto isSafe = [](char c) {
    return llvm::isAlnum(c) || llvm::StringRef("-_./=:,%+@").contains(c);
  };
  if (!argument.empty() && llvm::all_of(argument, isSafe))
    return argument.str();
  std::string quoted = "'";
  for (char c : argument)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string ho::cli::getCommandLine() {
  std::vector<std::string> quoted;
  for (const std::string &argument : getArguments())
    quoted.push_back(quoteForShell(argument));
  return llvm::join(quoted, " ");
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
