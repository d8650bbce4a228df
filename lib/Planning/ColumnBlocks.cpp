//===- ColumnBlocks.cpp - Stream large weights in column blocks -----------===//

#include "ColumnBlocks.h"

#include "hyperoffload/Dialect/HO/ComputeKinds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ho;

/// Whether `use` is the right operand, and only operand, of a matmul that
/// can be computed block by block.
static bool isSplittableMatmulWeight(OpOperand &use) {
  auto matmul = dyn_cast<ComputeOp>(use.getOwner());
  return matmul && use.getOperandNumber() == 1 &&
         matmul.getInputs()[0] != use.get() && isColumnSplittableMatmul(matmul);
}

/// The fewest blocks of at most `maxBlockBytes` that divide `columns` evenly;
/// one when no such split exists.
static int64_t countBlocks(int64_t bytes, int64_t columns,
                           int64_t maxBlockBytes) {
  for (int64_t blocks = llvm::divideCeil(bytes, maxBlockBytes);
       blocks <= columns; ++blocks)
    if (columns % blocks == 0)
      return blocks;
  return 1;
}

/// Replaces `matmul` by one matmul per block of its weight and a concat of
/// their results.
static void splitMatmul(ComputeOp matmul, ArrayRef<BlockArgument> blocks) {
  OpBuilder builder(matmul);
  auto resultType = cast<RankedTensorType>(matmul->getResult(0).getType());
  SmallVector<int64_t> blockShape(resultType.getShape());
  blockShape.back() /= blocks.size();
  auto blockType = resultType.clone(blockShape);
  SmallVector<Value> parts;
  for (BlockArgument block : blocks)
    parts.push_back(ComputeOp::create(builder, matmul.getLoc(),
                                      TypeRange{blockType}, "matmul",
                                      ValueRange{matmul.getInputs()[0], block})
                        ->getResult(0));
  Value joined = ComputeOp::create(builder, matmul.getLoc(),
                                   TypeRange{resultType}, "concat", parts)
                     ->getResult(0);
  matmul->getResult(0).replaceAllUsesWith(joined);
  matmul->erase();
}

bool ho::splitWeightsIntoColumnBlocks(func::FuncOp function,
                                      int64_t maxBlockBytes) {
  if (function.isExternal() || maxBlockBytes <= 0)
    return false;
  bool split = false;
  // From the last argument, so that the indices still to visit stay put.
  for (unsigned index = function.getNumArguments(); index-- > 0;) {
    BlockArgument weight = function.getArgument(index);
    auto type = dyn_cast<RankedTensorType>(weight.getType());
    std::optional<int64_t> bytes =
        type ? getTensorSizeInBytes(type) : std::nullopt;
    if (!type || type.getRank() != 2 || !bytes || *bytes <= maxBlockBytes ||
        weight.use_empty() ||
        !llvm::all_of(weight.getUses(), isSplittableMatmulWeight))
      continue;
    int64_t columns = type.getDimSize(1);
    int64_t numBlocks = countBlocks(*bytes, columns, maxBlockBytes);
    if (numBlocks == 1)
      continue;
    int64_t width = columns / numBlocks;
    auto blockType = type.clone({type.getDimSize(0), width});
    DictionaryAttr attrs = function.getArgAttrDict(index);
    MLIRContext *context = function.getContext();
    // A block split again keeps its columns relative to the original.
    int64_t firstColumn = 0;
    if (auto columnsOf = function.getArgAttrOfType<DenseI64ArrayAttr>(
            index, kColumnBlockAttrName);
        columnsOf && columnsOf.size() == 2)
      firstColumn = columnsOf[0];
    SmallVector<unsigned> positions(numBlocks, index + 1);
    SmallVector<Type> types(numBlocks, blockType);
    SmallVector<DictionaryAttr> blockAttrs;
    SmallVector<Location> locs(numBlocks, weight.getLoc());
    for (int64_t block = 0; block < numBlocks; ++block) {
      NamedAttrList list(attrs);
      list.set(
          kColumnBlockAttrName,
          DenseI64ArrayAttr::get(context, {firstColumn + block * width,
                                           firstColumn + (block + 1) * width}));
      blockAttrs.push_back(list.getDictionary(context));
    }
    if (failed(function.insertArguments(positions, types, blockAttrs, locs)))
      continue;
    SmallVector<BlockArgument> blocks(
        function.getArguments().slice(index + 1, numBlocks));
    for (OpOperand &use : llvm::make_early_inc_range(weight.getUses()))
      splitMatmul(cast<ComputeOp>(use.getOwner()), blocks);
    (void)function.eraseArgument(index);
    split = true;
  }
  return split;
}
