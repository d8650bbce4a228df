//===- KernelOutlining.cpp - Each linalg op a kernel with its own pointers ===//

#include "KernelOutlining.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
/// On an outlined kernel: the positions, among its arguments once lowered
/// to LLVM, of the aligned pointers to mark `noalias`.
constexpr llvm::StringLiteral kNoAliasPointersAttrName = "ho.noalias_pointers";

/// What a memref views: the value it is a view of, the bytes of that
/// value it can touch when they are known, and whether the value is an
/// object of its own (an allocation or a function argument).
struct MemRefRoot {
  Value base;
  std::optional<std::pair<int64_t, int64_t>> bytes;
  bool isObject = false;
};
} // namespace

static MemRefRoot getRoot(Value value) {
  if (auto view = value.getDefiningOp<memref::ViewOp>()) {
    MemRefRoot root = getRoot(view.getSource());
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    MemRefType type = view.getType();
    if (!shift || !type.hasStaticShape() || root.bytes) {
      root.bytes.reset();
      return root;
    }
    int64_t bytes = type.getNumElements() *
                    llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    root.bytes = {{*shift, *shift + bytes}};
    return root;
  }
  // A subview, cast or reshape touches no more than its source's bytes.
  if (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    return getRoot(view.getViewSource());
  MemRefRoot root;
  root.base = value;
  if (auto argument = dyn_cast<BlockArgument>(value))
    root.isObject = isa<func::FuncOp>(argument.getOwner()->getParentOp());
  else
    root.isObject =
        isa<memref::AllocOp, memref::AllocaOp>(value.getDefiningOp());
  return root;
}

/// Whether no byte `a` can touch is one `b` can.
static bool areDisjoint(const MemRefRoot &a, const MemRefRoot &b) {
  if (a.base != b.base)
    return a.isObject && b.isObject;
  return a.bytes && b.bytes &&
         (a.bytes->second <= b.bytes->first ||
          b.bytes->second <= a.bytes->first);
}

/// The arguments of `op`'s kernel (its operands, then the values its body
/// uses from above) that overlap none of its other memrefs.
static SmallVector<unsigned> getDistinctMemRefs(ArrayRef<Value> arguments) {
  SmallVector<std::pair<unsigned, MemRefRoot>> memrefs;
  for (auto [index, value] : llvm::enumerate(arguments))
    if (isa<MemRefType>(value.getType()))
      memrefs.push_back({static_cast<unsigned>(index), getRoot(value)});
  SmallVector<unsigned> distinct;
  for (const auto &memref : memrefs)
    if (llvm::all_of(memrefs, [&](const auto &other) {
          return other.first == memref.first ||
                 areDisjoint(memref.second, other.second);
        }))
      distinct.push_back(memref.first);
  return distinct;
}

void ho::outlineKernels(ModuleOp module) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (op->getNumResults() == 0 && op->getParentOfType<func::FuncOp>())
      ops.push_back(op);
  });
  SymbolTable symbols(module);
  OpBuilder builder(module.getContext());
  for (linalg::LinalgOp op : ops) {
    SetVector<Value> arguments(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), arguments);
    SmallVector<unsigned> distinct =
        getDistinctMemRefs(arguments.getArrayRef());
    if (distinct.empty())
      continue;
    Location loc = op.getLoc();
    builder.setInsertionPointToEnd(module.getBody());
    auto kernel = func::FuncOp::create(
        builder, loc, "ho_kernel",
        builder.getFunctionType(ValueRange(arguments.getArrayRef()).getTypes(),
                                {}));
    kernel.setPrivate();
    symbols.insert(kernel);
    Block *entry = kernel.addEntryBlock();
    IRMapping mapping;
    mapping.map(arguments.getArrayRef(), entry->getArguments());
    builder.setInsertionPointToStart(entry);
    builder.clone(*op, mapping);
    func::ReturnOp::create(builder, loc);
    // A memref of rank r becomes 3 + 2r arguments in LLVM (allocated and
    // aligned pointers, offset, sizes, strides); anything else one.
    SmallVector<int64_t> pointers;
    int64_t position = 0;
    for (auto [index, value] : llvm::enumerate(arguments)) {
      auto type = dyn_cast<MemRefType>(value.getType());
      if (type && llvm::is_contained(distinct, index))
        pointers.push_back(position + 1);
      position += type ? 3 + 2 * type.getRank() : 1;
    }
    kernel->setAttr(kNoAliasPointersAttrName,
                    builder.getDenseI64ArrayAttr(pointers));
    builder.setInsertionPoint(op);
    func::CallOp::create(builder, loc, kernel, arguments.getArrayRef());
    op->erase();
  }
}

void ho::markNoAliasKernelArguments(ModuleOp module) {
  module.walk([](LLVM::LLVMFuncOp function) {
    auto pointers =
        function->getAttrOfType<DenseI64ArrayAttr>(kNoAliasPointersAttrName);
    if (!pointers)
      return;
    function->removeAttr(kNoAliasPointersAttrName);
    ArrayRef<Type> types = function.getArgumentTypes();
    for (int64_t position : pointers.asArrayRef())
      if (position < static_cast<int64_t>(types.size()) &&
          isa<LLVM::LLVMPointerType>(types[position]))
        function.setArgAttr(position, LLVM::LLVMDialect::getNoAliasAttrName(),
                            UnitAttr::get(function.getContext()));
  });
}
