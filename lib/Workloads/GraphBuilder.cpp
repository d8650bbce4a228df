//===- GraphBuilder.cpp - Emit a model graph as one function --------------===//

#include "GraphBuilder.h"

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

Type workloads::getElementType(MLIRContext &context, DType type) {
  Builder b(&context);
  switch (type) {
  case DType::BF16:
    return b.getBF16Type();
  case DType::F16:
    return b.getF16Type();
  case DType::F32:
    return b.getF32Type();
  case DType::FP8:
    return b.getType<Float8E4M3FNType>();
  }
  llvm_unreachable("unknown element type");
}

int64_t workloads::numElements(Type type) {
  return cast<ShapedType>(type).getNumElements();
}

int64_t workloads::sizeInBytes(Type type) {
  return *getTensorSizeInBytes(type);
}

GraphBuilder::GraphBuilder(MLIRContext &context, llvm::StringRef functionName,
                           bool recordTape)
    : context(context), module(ModuleOp::create(UnknownLoc::get(&context))),
      body(new Block()), builder(&context), functionName(functionName.str()),
      recordTape(recordTape) {
  builder.setInsertionPointToEnd(body);
}

GraphBuilder::Scope::Scope(GraphBuilder &builder, std::string name)
    : builder(builder) {
  builder.scopes.push_back(std::move(name));
}

GraphBuilder::Scope::~Scope() { builder.scopes.pop_back(); }

std::string GraphBuilder::qualify(llvm::StringRef leaf) const {
  std::string name;
  for (const std::string &scope : scopes)
    name += scope + " / ";
  return name + leaf.str();
}

Location GraphBuilder::loc(llvm::StringRef leaf) {
  return NameLoc::get(StringAttr::get(&context, qualify(leaf)));
}

Value GraphBuilder::argument(llvm::StringRef name, Type type,
                             llvm::StringRef role) {
  argumentRoles.push_back(StringAttr::get(&context, role));
  return body->addArgument(type, loc(name));
}

void GraphBuilder::result(Value value, llvm::StringRef role) {
  results.push_back(value);
  resultRoles.push_back(StringAttr::get(&context, role));
}

SmallVector<Value> GraphBuilder::computeN(
    llvm::StringRef kind, ValueRange inputs, TypeRange resultTypes,
    llvm::StringRef name, std::optional<int64_t> flops,
    std::optional<int64_t> bytes, llvm::ArrayRef<int64_t> tied) {
  auto op = ComputeOp::create(builder, loc(name), resultTypes, kind, inputs);
  if (flops)
    op.setFlopsAttr(builder.getI64IntegerAttr(*flops));
  if (bytes)
    op.setBytesAttr(builder.getI64IntegerAttr(*bytes));
  if (!tied.empty())
    op.setTiedOperandsAttr(builder.getDenseI64ArrayAttr(tied));
  return SmallVector<Value>(op.getResults());
}

SmallVector<Value> GraphBuilder::routed(llvm::StringRef kind, ValueRange inputs,
                                        Value selection, ValueRange experts,
                                        TypeRange resultTypes,
                                        llvm::StringRef name,
                                        int64_t firstExpert,
                                        int64_t totalExperts) {
  auto op =
      RoutedOp::create(builder, loc(name), resultTypes, kind, inputs, selection,
                       experts, /*staged=*/Value(), firstExpert, totalExperts);
  return SmallVector<Value>(op.getResults());
}

Value GraphBuilder::gatherBlocks(Value source, Value selection, int64_t axis,
                                 int64_t blockSize, llvm::StringRef name) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] =
      cast<RankedTensorType>(selection.getType()).getShape().back() * blockSize;
  return GatherBlocksOp::create(
      builder, loc(name), RankedTensorType::get(shape, type.getElementType()),
      source, selection, /*staged=*/Value(), axis, blockSize);
}

Value GraphBuilder::insertSlice(Value source, Value dest,
                                ArrayRef<int64_t> offsets,
                                llvm::StringRef name) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsetValues, sizes, strides;
  for (auto [offset, size] : llvm::zip(offsets, type.getShape())) {
    offsetValues.push_back(builder.getIndexAttr(offset));
    sizes.push_back(builder.getIndexAttr(size));
    strides.push_back(builder.getIndexAttr(1));
  }
  return tensor::InsertSliceOp::create(builder, loc(name), source, dest,
                                       offsetValues, sizes, strides);
}

Value GraphBuilder::fetch(Value remote, llvm::StringRef name) {
  Value future = PrefetchOp::create(builder, loc(name), remote);
  return AwaitOp::create(builder, loc(name), future);
}

Value GraphBuilder::store(Value value, llvm::StringRef name) {
  return OffloadOp::create(builder, loc(name), value, MemoryTier::pool);
}

Value GraphBuilder::slice(Value source, int64_t index, llvm::StringRef name) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim : type.getShape())
    sizes.push_back(builder.getIndexAttr(dim));
  offsets[0] = builder.getIndexAttr(index);
  sizes[0] = builder.getIndexAttr(1);
  auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
  return tensor::ExtractSliceOp::create(builder, loc(name), resultType, source,
                                        offsets, sizes, strides);
}

void GraphBuilder::record(ValueRange inputs, ValueRange outputs,
                          BackwardRule rule) {
  if (!recordTape)
    return;
  tape.push_back({SmallVector<Value>(inputs), SmallVector<Value>(outputs),
                  std::move(rule), scopes});
}

DenseMap<Value, Value> GraphBuilder::emitBackward(Value loss, Value seed) {
  DenseMap<Value, Value> grads;
  grads[loss] = seed;
  std::vector<std::string> forwardScopes = scopes;
  for (TapeEntry &entry : llvm::reverse(tape)) {
    SmallVector<Value> outputGrads;
    bool any = false;
    for (Value output : entry.outputs) {
      outputGrads.push_back(grads.lookup(output));
      any |= static_cast<bool>(outputGrads.back());
    }
    // Values that do not lead to the loss need no gradient.
    if (!any)
      continue;
    scopes = {"backward"};
    scopes.insert(scopes.end(), entry.scopes.begin(), entry.scopes.end());
    SmallVector<Value> inputGrads = entry.rule(*this, outputGrads);
    for (auto [input, grad] : llvm::zip_equal(entry.inputs, inputGrads)) {
      if (!grad)
        continue;
      Value &accumulated = grads[input];
      accumulated = accumulated ? compute("add", {accumulated, grad},
                                          accumulated.getType(), "d_sum")
                                : grad;
    }
  }
  scopes = forwardScopes;
  return grads;
}

OwningOpRef<ModuleOp> GraphBuilder::finish() {
  SmallVector<Type> resultTypes;
  for (Value value : results)
    resultTypes.push_back(value.getType());
  func::ReturnOp::create(builder, UnknownLoc::get(&context), results);

  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module->getBody());
  auto function = func::FuncOp::create(
      moduleBuilder, UnknownLoc::get(&context), functionName,
      FunctionType::get(&context, body->getArgumentTypes(), resultTypes));
  function.getBody().push_back(body);
  // All at once: setting them one by one rebuilds the whole list each time,
  // which is quadratic in the tens of thousands of expert weights.
  auto roleDictionaries = [&](llvm::ArrayRef<Attribute> roles) {
    SmallVector<DictionaryAttr> dictionaries;
    for (Attribute role : roles)
      dictionaries.push_back(
          DictionaryAttr::get(&context, {NamedAttribute(kRoleAttrName, role)}));
    return dictionaries;
  };
  function.setAllArgAttrs(roleDictionaries(argumentRoles));
  function.setAllResultAttrs(roleDictionaries(resultRoles));
  body = nullptr;
  return std::move(module);
}
