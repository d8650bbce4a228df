//===- KernelOutliningTest.cpp - Distinct buffers become noalias kernels --===//
//
// A matmul over three views of one arena at disjoint offsets moves into a
// kernel whose three pointers are noalias once lowered; an op whose
// operands may overlap (two views of the same bytes) stays where it is.
//
//===----------------------------------------------------------------------===//

#include "KernelOutlining.h"

#include "hyperoffload/Execution/JitFunction.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr llvm::StringLiteral kPlaced = R"mlir(
  func.func @step(%arena: memref<?xi8>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %a = memref.view %arena[%c0][] : memref<?xi8> to memref<4x4xf32>
    %b = memref.view %arena[%c64][] : memref<?xi8> to memref<4x4xf32>
    %c = memref.view %arena[%c128][] : memref<?xi8> to memref<4x4xf32>
    linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
    %overlap = memref.view %arena[%c64][] : memref<?xi8> to memref<16xf32>
    %again = memref.view %arena[%c64][] : memref<?xi8> to memref<16xf32>
    linalg.copy ins(%overlap : memref<16xf32>) outs(%again : memref<16xf32>)
    return
  }
)mlir";

class KernelOutliningTest : public ::testing::Test {
protected:
  KernelOutliningTest() {
    DialectRegistry registry;
    registerExecutionDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};
} // namespace

TEST_F(KernelOutliningTest, DisjointViewsBecomeNoAliasArguments) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kPlaced, &context);
  ASSERT_TRUE(module);
  outlineKernels(*module);
  SmallVector<func::FuncOp> kernels;
  for (auto function : module->getOps<func::FuncOp>())
    if (function.isPrivate())
      kernels.push_back(function);
  // The matmul moved; the copy between views of the same bytes did not.
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].getNumArguments(), 3u);
  unsigned copies = 0;
  module->walk([&](linalg::CopyOp) { ++copies; });
  EXPECT_EQ(copies, 1u);
  std::string name = kernels[0].getName().str();

  PassManager pm(&context);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  markNoAliasKernelArguments(*module);
  auto kernel = module->lookupSymbol<LLVM::LLVMFuncOp>(name);
  ASSERT_TRUE(kernel);
  // Three rank-2 memrefs of 7 arguments each: the aligned pointers are
  // arguments 1, 8 and 15.
  SmallVector<unsigned> noalias;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
    if (kernel.getArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName()))
      noalias.push_back(i);
  EXPECT_EQ(noalias, (SmallVector<unsigned>{1, 8, 15}));
}
