//===- hyperoffload-opt.cpp - HyperOffload optimizer driver ---------------===//
//
// An mlir-opt-style driver: parses `.mlir` files, runs the requested passes
// and prints the result. It knows the `ho` dialect, every upstream dialect
// and extension (see InputDialects.h) and every HyperOffload pass.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/InputDialects.h"
#include "hyperoffload/InputGuards.h"
#include "hyperoffload/Support/PlainDiagnostics.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// Prints the diagnostics of `context` that have no source line to show in
/// the tool's style (PlainDiagnostics.h).
static void addPlainDiagnostics(mlir::MLIRContext *context) {
  context->getDiagEngine().registerHandler([](mlir::Diagnostic &diag) {
    return mlir::ho::printWithoutSourceLine(diag, "hyperoffload-opt");
  });
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::ho::registerInputDialects(registry);

  // Generic clean-ups (canonicalize, cse, ...) to combine with our passes.
  mlir::registerTransformsPasses();
  mlir::ho::registerHyperOffloadPasses();
  mlir::ho::registerHyperOffloadPipeline();
  // The passes that exist for the lit tests (`test-ho-*`) are registered
  // only when the command line names one, so that the help lists what a
  // user runs.
  if (llvm::any_of(llvm::ArrayRef(argv, argc), [](llvm::StringRef arg) {
        return arg.contains("test-ho-");
      })) {
    mlir::ho::test::registerTestBufferLivenessPass();
    mlir::ho::test::registerTestCostOpInterfacePass();
  }
  // `--version` names this project's release above the LLVM it is built on.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "HyperOffload version " HYPEROFFLOAD_VERSION "\n";
  });

  // A diagnostic says what and where; the op it is about, printed whole in
  // generic form after it, buries that. Unless asked for, leave it out.
  std::vector<char *> args(argv, argv + argc);
  // One at an op named after its layer, or at a module's line 0, has no
  // source line to show: say where in words rather than as
  // `<unknown>:0: ... loc("...")`. The handler goes on a context as `func`
  // or `ho` loads (a second one never runs: the first takes every such
  // diagnostic), after the driver's own. -verify-diagnostics must see
  // every diagnostic itself.
  if (llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.contains("verify-diagnostics");
      })) {
    registry.addExtension(
        +[](mlir::MLIRContext *context, mlir::func::FuncDialect *) {
          addPlainDiagnostics(context);
        });
    registry.addExtension(
        +[](mlir::MLIRContext *context, mlir::ho::HODialect *) {
          addPlainDiagnostics(context);
        });
  }
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
