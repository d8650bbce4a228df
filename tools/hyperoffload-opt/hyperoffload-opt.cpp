//===- hyperoffload-opt.cpp - HyperOffload optimizer driver ---------------===//
//
// An mlir-opt-style driver: parses `.mlir` files, runs the requested passes
// and prints the result. It knows the `ho` dialect, every upstream dialect
// and extension (see InputDialects.h) and every HyperOffload pass.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/InputDialects.h"
#include "hyperoffload/InputGuards.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace mlir::ho::test {
void registerTestBufferLivenessPass();
void registerTestCostOpInterfacePass();
} // namespace mlir::ho::test

/// Whether the file at `path` is free of the text MLIR 22's parsers crash
/// on (see InputGuards.h); says where it is otherwise. Standard input, which
/// cannot be read twice, is not checked.
static bool isParserSafe(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return true; // MlirOptMain reports it
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  mlir::MLIRContext context;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return mlir::succeeded(mlir::ho::checkParserHazards(sourceMgr, &context));
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::ho::registerInputDialects(registry);

  // Generic clean-ups (canonicalize, cse, ...) to combine with our passes.
  mlir::registerTransformsPasses();
  mlir::ho::registerHyperOffloadPasses();
  mlir::ho::registerHyperOffloadPipeline();
  mlir::ho::test::registerTestBufferLivenessPass();
  mlir::ho::test::registerTestCostOpInterfacePass();
  // `--version` names this project's release above the LLVM it is built on.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "HyperOffload version " HYPEROFFLOAD_VERSION "\n";
  });

  // A diagnostic says what and where; the op it is about, printed whole in
  // generic form after it, buries that. Unless asked for, leave it out.
  std::vector<char *> args(argv, argv + argc);
  std::string quiet = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.contains("mlir-print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, quiet.data());
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      args.size(), args.data(), "HyperOffload optimizer driver\n", registry);
  if (!inputFile.empty() && inputFile != "-" && !isParserSafe(inputFile))
    return 1;
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      args.size(), args.data(), inputFile, outputFile, registry));
}
