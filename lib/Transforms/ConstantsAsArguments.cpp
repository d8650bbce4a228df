//===- ConstantsAsArguments.cpp - Embedded weights as arguments -----------===//

#include "hyperoffload/Transforms/Passes.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::ho {
#define GEN_PASS_DEF_CONSTANTSASARGUMENTS
#include "hyperoffload/Transforms/Passes.h.inc"
} // namespace mlir::ho

using namespace mlir;
using namespace mlir::ho;

/// The value of a constant tensor `op` defines, or null: a ConstantLike op,
/// or a load of an immutable ml_program.global.
static ElementsAttr getConstantValue(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return {};
  if (auto load = dyn_cast<ml_program::GlobalLoadConstOp>(op)) {
    auto global = SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
        op, load.getGlobalAttr());
    return global ? dyn_cast_or_null<ElementsAttr>(global.getValueAttr())
                  : ElementsAttr();
  }
  ElementsAttr value;
  if (!op->hasTrait<OpTrait::ConstantLike>() ||
      !matchPattern(op->getResult(0), m_Constant(&value)))
    return {};
  return value;
}

/// Whether `value`, a splat, is only ever the init of destination-style
/// ops: a fill makes it, nothing stores it.
static bool isOnlyInitSplat(Value value, ElementsAttr constant) {
  auto dense = dyn_cast<DenseElementsAttr>(constant);
  if (!dense || !dense.isSplat())
    return false;
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    return dps && dps.isDpsInit(&use);
  });
}

namespace {
struct ConstantsAsArgumentsPass
    : public ho::impl::ConstantsAsArgumentsBase<ConstantsAsArgumentsPass> {
  using Base::Base;
  void runOnOperation() override;
  void runOnFunction(func::FuncOp function);
};
} // namespace

void ConstantsAsArgumentsPass::runOnFunction(func::FuncOp function) {
  Block &body = function.getBody().front();
  Builder builder(&getContext());
  SmallVector<Operation *> constants;
  for (Operation &op : body) {
    ElementsAttr value = getConstantValue(&op);
    std::optional<int64_t> bytes =
        value ? getTensorSizeInBytes(value.getType()) : std::nullopt;
    if (bytes && *bytes >= minBytes && !isOnlyInitSplat(op.getResult(0), value))
      constants.push_back(&op);
  }
  for (Operation *op : constants) {
    Value result = op->getResult(0);
    NamedAttribute attrs[] = {
        builder.getNamedAttr(kConstantAttrName, getConstantValue(op)),
        builder.getNamedAttr(kRoleAttrName, builder.getStringAttr("weight"))};
    unsigned index = function.getNumArguments();
    if (failed(function.insertArgument(index, result.getType(),
                                       builder.getDictionaryAttr(attrs),
                                       op->getLoc())))
      return signalPassFailure();
    result.replaceAllUsesWith(function.getArgument(index));
    op->erase();
    ++numConstants;
  }
}

void ConstantsAsArgumentsPass::runOnOperation() {
  ModuleOp module = getOperation();
  for (auto function : module.getOps<func::FuncOp>()) {
    // A caller would pass the wrong number of arguments.
    if (function.isExternal() ||
        !SymbolTable::symbolKnownUseEmpty(function, module))
      continue;
    runOnFunction(function);
  }
}
