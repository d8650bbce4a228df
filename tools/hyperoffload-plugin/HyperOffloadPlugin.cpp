//===- HyperOffloadPlugin.cpp - HyperOffload as an mlir-opt plugin --------===//
//
// Entry points that let a stock `mlir-opt` load HyperOffload:
//
//   mlir-opt --load-dialect-plugin=libHyperOffloadPlugin.so \
//            --load-pass-plugin=libHyperOffloadPlugin.so \
//            --hyperoffload="hw=... budget=..." in.mlir
//
// The dialect entry point adds the `ho` dialect and the CostOpInterface
// models of linalg and tosa ops to mlir-opt's registry; the pass entry point
// registers every `--ho-*` pass and the `--hyperoffload` pipeline. Either
// entry point registers the passes, so one flag is enough when the input
// needs no `ho` ops parsed; registration happens once however many times the
// library is loaded.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/InitAll.h"
#include "hyperoffload/Interfaces/CostExternalModels.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <mutex>

namespace {

void registerPasses() {
  // mlir-opt aborts when a pipeline name is registered twice, and both
  // entry points of this library may run in one process.
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::ho::registerHyperOffloadPasses();
    mlir::ho::registerHyperOffloadPipeline();
  });
}

void registerDialects(mlir::DialectRegistry *registry) {
  mlir::ho::registerHyperOffloadDialects(*registry);
  mlir::ho::registerCostExternalModels(*registry);
  registerPasses();
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HyperOffload", LLVM_VERSION_STRING,
          registerDialects};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HyperOffloadPasses", LLVM_VERSION_STRING,
          registerPasses};
}
