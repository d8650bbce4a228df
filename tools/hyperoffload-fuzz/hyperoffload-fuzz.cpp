//===- hyperoffload-fuzz.cpp - libFuzzer entry point for the passes -------===//
//
// Parses each input as a module and runs, on a copy each, the passes a user
// points at IR nobody checked: the report, the pipeline at three budgets,
// the verifier, offset assignment and the lowering. Every outcome other
// than success or a diagnostic (a crash, a sanitizer report, a hang that
// libFuzzer's -timeout catches) is a finding. Built with
// -DHYPEROFFLOAD_FUZZ=ON and clang; `make fuzz` runs it.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/InputDialects.h"
#include "hyperoffload/InputGuards.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

using namespace mlir;

/// The pipelines each parsed input goes through, as `mlir-opt` spells them.
/// The budgets are in bytes, the scale of the repository's test inputs.
static constexpr const char *kPipelines[] = {
    "builtin.module(ho-report{output=/dev/null})",
    "builtin.module(hyperoffload{budget=2KB})",
    "builtin.module(hyperoffload{budget=64KB})",
    "builtin.module(hyperoffload{budget=4MB})",
    "builtin.module(ho-verify-schedule)",
    "builtin.module(ho-assign-offsets)",
    "builtin.module(ho-lower-to-runtime)",
};

static const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *result = new DialectRegistry;
    ho::registerInputDialects(*result);
    ho::registerHyperOffloadPasses();
    ho::registerHyperOffloadPipeline();
    return result;
  }();
  return *registry;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome of bad input: keep them quiet.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "input"),
      llvm::SMLoc());
  // The text MLIR 22's own parsers crash on is refused first, as the tools
  // refuse it.
  if (failed(ho::checkParserHazards(sourceMgr, &context)))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  for (const char *pipeline : kPipelines) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager passes(&context);
    if (failed(parsePassPipeline(pipeline, passes)))
      llvm::report_fatal_error(llvm::Twine("bad fuzz pipeline: ") + pipeline);
    (void)passes.run(*copy);
  }
  return 0;
}
