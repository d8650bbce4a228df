//===- ho-plan.cpp - Plan a module with HyperOffload's C++ API ------------===//
//
// An example of using an installed HyperOffload from another project: parse
// a .mlir file, add the HyperOffload pipeline to an MLIR PassManager and run
// it, then print one line per function with the transfers it planned.
//
//   ho-plan <input.mlir> <hardware preset or JSON file> <budget>
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/InitAll.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    llvm::errs() << "usage: " << argv[0]
                 << " <input.mlir> <hardware preset or JSON file> <budget>\n";
    return 2;
  }

  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect>();
  mlir::ho::registerHyperOffloadDialects(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  mlir::PassManager pm(&context);
  mlir::ho::HyperOffloadPipelineOptions options;
  options.hw = argv[2];
  options.budget = argv[3];
  mlir::ho::buildHyperOffloadPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;

  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    unsigned prefetches = 0, offloads = 0;
    func.walk([&](mlir::Operation *op) {
      prefetches += mlir::isa<mlir::ho::PrefetchOp>(op);
      offloads += mlir::isa<mlir::ho::OffloadOp>(op);
    });
    auto arena = func->getAttrOfType<mlir::IntegerAttr>("ho.arena_size");
    llvm::outs() << "@" << func.getSymName() << ": " << prefetches
                 << " prefetches, " << offloads << " offloads, arena "
                 << (arena ? arena.getInt() : 0) << " bytes\n";
  }
  return 0;
}
