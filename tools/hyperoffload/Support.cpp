//===- Support.cpp - Shared helpers of the hyperoffload tool --------------===//

#include "Support.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/InputDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
  // The graphs are built in ho, func and tensor; input files may use any
  // dialect, loaded when the parser meets it.
  DialectRegistry registry;
  registerInputDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  // Diagnostics say what and where, without the op in generic form.
  context->printOpOnDiagnostic(false);
  context->loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  return context;
}
