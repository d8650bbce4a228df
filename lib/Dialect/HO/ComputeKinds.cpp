//===- ComputeKinds.cpp - Cost formulas of ho.compute kinds ---------------===//
//
// The formulas and shape conventions are documented in ComputeKinds.h and
// docs/CostModel.md.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/ComputeKinds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
/// What a kind's formula concludes about one quantity: failure() when the op
/// does not follow the kind's shape convention (the caller then uses the
/// interface default), std::nullopt when it does but a shape the formula
/// reads is dynamic, and the count otherwise.
using KindCount = FailureOr<std::optional<int64_t>>;

/// A tensor shape, dynamic dimensions included.
using Shape = ArrayRef<int64_t>;
} // namespace

/// The product of `factors`, or std::nullopt if it overflows.
static std::optional<int64_t> product(ArrayRef<int64_t> factors) {
  int64_t result = 1;
  for (int64_t factor : factors) {
    std::optional<int64_t> next = llvm::checkedMul(result, factor);
    if (!next)
      return std::nullopt;
    result = *next;
  }
  return result;
}

/// The shape of `value` if it is a ranked tensor of rank `rank` (any rank
/// when `rank` is negative), std::nullopt otherwise.
static std::optional<Shape> rankedShape(Value value, int64_t rank = -1) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || (rank >= 0 && type.getRank() != rank))
    return std::nullopt;
  return type.getShape();
}

static bool anyDynamic(ArrayRef<Shape> shapes) {
  return llvm::any_of(
      shapes, [](Shape shape) { return ShapedType::isDynamicShape(shape); });
}

//===----------------------------------------------------------------------===//
// matmul, batch_matmul
//===----------------------------------------------------------------------===//

static KindCount matmulFlops(ComputeOp op) {
  if (op.getNumOperands() != 2 || op.getNumResults() != 1)
    return failure();
  std::optional<Shape> a = rankedShape(op.getOperand(0));
  std::optional<Shape> b = rankedShape(op.getOperand(1));
  std::optional<Shape> c = rankedShape(op.getResult(0));
  if (!a || !b || !c || a->size() < 2 || c->size() != a->size() ||
      (b->size() != 2 && b->size() != a->size()))
    return failure();
  if (anyDynamic({*a, *b, *c}))
    return std::optional<int64_t>();

  size_t rank = a->size();
  int64_t m = (*a)[rank - 2], k = (*a)[rank - 1];
  int64_t n = b->back();
  Shape batch = c->drop_back(2);
  bool batchMatches =
      a->drop_back(2) == batch && (b->size() == 2 || b->drop_back(2) == batch);
  if ((*b)[b->size() - 2] != k || (*c)[rank - 2] != m || c->back() != n ||
      !batchMatches)
    return failure();
  std::optional<int64_t> resultElements = product(*c);
  if (!resultElements)
    return std::optional<int64_t>();
  return product({2, *resultElements, k});
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

static KindCount attentionFlops(ComputeOp op) {
  if (op.getNumOperands() != 3 || op.getNumResults() != 1)
    return failure();
  std::optional<Shape> q = rankedShape(op.getOperand(0), 4);
  std::optional<Shape> k = rankedShape(op.getOperand(1), 4);
  std::optional<Shape> v = rankedShape(op.getOperand(2), 4);
  std::optional<Shape> out = rankedShape(op.getResult(0), 4);
  if (!q || !k || !v || !out)
    return failure();
  if (anyDynamic({*q, *k, *v, *out}))
    return std::optional<int64_t>();

  int64_t batch = (*q)[0], heads = (*q)[1], sq = (*q)[2], d = (*q)[3];
  int64_t kvHeads = (*k)[1], sk = (*k)[2], dv = (*v)[3];
  bool kvMatch = (*k)[0] == batch && (*v)[0] == batch && (*v)[1] == kvHeads &&
                 (*v)[2] == sk && (*k)[3] == d;
  bool groupsMatch = kvHeads > 0 && heads % kvHeads == 0;
  bool outMatches = *out == ArrayRef<int64_t>{batch, heads, sq, dv};
  if (!kvMatch || !groupsMatch || !outMatches)
    return failure();

  // The number of (query, key) scores: all of them, or under a causal mask,
  // query i of the last Sq positions sees the Sk - Sq + i + 1 keys up to it.
  std::optional<int64_t> scores;
  if (op->hasAttrOfType<UnitAttr>("causal")) {
    if (sq > sk)
      return failure();
    std::optional<int64_t> older = product({sq, sk - sq});
    std::optional<int64_t> next = llvm::checkedAdd(sq, int64_t(1));
    std::optional<int64_t> triangle =
        next ? product({sq, *next}) : std::nullopt;
    if (older && triangle)
      scores = llvm::checkedAdd(*older, *triangle / 2);
  } else {
    scores = product({sq, sk});
  }
  // Two matmuls (q.k and p.v), 2 * (D + Dv) per score, plus the softmax.
  std::optional<int64_t> widths = llvm::checkedAdd(d, dv);
  std::optional<int64_t> perScore =
      widths ? llvm::checkedMulAdd(int64_t(2), *widths, int64_t(5))
             : std::nullopt;
  if (!scores || !perScore)
    return std::optional<int64_t>();
  return product({batch, heads, *scores, *perScore});
}

//===----------------------------------------------------------------------===//
// embedding, gather
//===----------------------------------------------------------------------===//

/// Checks (table [V, E], indices [...]) -> [..., E]: failure() when the op
/// does not follow it, false when it does but a shape is dynamic.
static FailureOr<bool> matchGather(ComputeOp op) {
  if (op.getNumOperands() != 2 || op.getNumResults() != 1)
    return failure();
  std::optional<Shape> table = rankedShape(op.getOperand(0), 2);
  std::optional<Shape> indices = rankedShape(op.getOperand(1));
  std::optional<Shape> rows =
      indices ? rankedShape(op.getResult(0), indices->size() + 1)
              : std::nullopt;
  if (!table || !indices || !rows)
    return failure();
  if (anyDynamic({*table, *indices, *rows}))
    return false;
  if (rows->drop_back() != *indices || rows->back() != (*table)[1])
    return failure();
  return true;
}

static KindCount gatherFlops(ComputeOp op) {
  FailureOr<bool> isStatic = matchGather(op);
  if (failed(isStatic))
    return failure();
  return *isStatic ? std::optional<int64_t>(0) : std::nullopt;
}

static KindCount gatherBytes(ComputeOp op) {
  FailureOr<bool> isStatic = matchGather(op);
  if (failed(isStatic))
    return failure();
  std::optional<int64_t> rows = getTensorSizeInBytes(op.getResult(0).getType());
  std::optional<int64_t> indices =
      getTensorSizeInBytes(op.getOperand(1).getType());
  if (!*isStatic || !rows || !indices)
    return std::optional<int64_t>();
  return llvm::checkedMulAdd(*rows, int64_t{2}, *indices);
}

//===----------------------------------------------------------------------===//
// kv_append, cache_update
//===----------------------------------------------------------------------===//

/// The operands that no result reuses (the new entries), or failure() when a
/// result has a buffer of its own: then the op is not an in-place update.
static FailureOr<llvm::SmallBitVector> matchCacheUpdate(ComputeOp op) {
  std::optional<ArrayRef<int64_t>> tied = op.getTiedOperands();
  if (op.getNumResults() == 0 || !tied ||
      llvm::is_contained(*tied, ComputeOp::kUntied))
    return failure();
  llvm::SmallBitVector fresh(op.getNumOperands(), true);
  for (int64_t operand : *tied)
    fresh.reset(operand);
  return fresh;
}

static KindCount cacheUpdateFlops(ComputeOp op) {
  if (failed(matchCacheUpdate(op)))
    return failure();
  return std::optional<int64_t>(0);
}

static KindCount cacheUpdateBytes(ComputeOp op) {
  FailureOr<llvm::SmallBitVector> fresh = matchCacheUpdate(op);
  if (failed(fresh))
    return failure();
  int64_t total = 0;
  for (unsigned operand : fresh->set_bits()) {
    std::optional<int64_t> size =
        getTensorSizeInBytes(op.getOperand(operand).getType());
    std::optional<int64_t> sum =
        size ? llvm::checkedAdd(total, *size) : std::nullopt;
    if (!sum)
      return std::optional<int64_t>();
    total = *sum;
  }
  // Read from their operand, then written into the cache.
  return llvm::checkedMul(total, int64_t{2});
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::optional<int64_t> ho::getFlopsPerResultElement(StringRef kind) {
  return llvm::StringSwitch<std::optional<int64_t>>(kind)
      .Cases({"add", "sub", "mul", "div", "max", "min", "neg"}, 1)
      .Cases({"scale", "residual", "relu", "exp", "tanh"}, 1)
      .Cases({"sigmoid", "silu"}, 4)
      .Case("swiglu", 5)
      .Case("gelu", 9)
      .Case("rope", 3)
      .Cases({"copy", "cast"}, 0)
      .Case("rmsnorm", 4)
      .Case("layernorm", 7)
      .Case("softmax", 5)
      .Cases({"allreduce", "reduce_scatter"}, 1)
      .Cases({"allgather", "all_to_all"}, 0)
      .Default(std::nullopt);
}

bool ho::isCollectiveKind(StringRef kind) {
  return llvm::is_contained(
      {"allreduce", "allgather", "reduce_scatter", "all_to_all"}, kind);
}

/// `perElement` operations per element of every result.
static KindCount perElementFlops(ComputeOp op, int64_t perElement) {
  std::optional<int64_t> elements = ho::detail::getDefaultFlopCount(op);
  if (!elements)
    return std::optional<int64_t>();
  return llvm::checkedMul(perElement, *elements);
}

static bool isGatherKind(StringRef kind) {
  return kind == "embedding" || kind == "gather";
}

static bool isCacheUpdateKind(StringRef kind) {
  return kind == "kv_append" || kind == "cache_update";
}

std::optional<int64_t> ho::getComputeKindFlopCount(ComputeOp op) {
  StringRef kind = op.getKind();
  KindCount count = failure();
  if (kind == "matmul" || kind == "batch_matmul")
    count = matmulFlops(op);
  else if (kind == "attention")
    count = attentionFlops(op);
  else if (isGatherKind(kind))
    count = gatherFlops(op);
  else if (isCacheUpdateKind(kind))
    count = cacheUpdateFlops(op);
  else if (std::optional<int64_t> perElement = getFlopsPerResultElement(kind))
    count = perElementFlops(op, *perElement);

  if (failed(count))
    return ho::detail::getDefaultFlopCount(op);
  return *count;
}

std::optional<int64_t> ho::getComputeKindBytesAccessed(ComputeOp op) {
  StringRef kind = op.getKind();
  KindCount count = failure();
  if (isGatherKind(kind))
    count = gatherBytes(op);
  else if (isCacheUpdateKind(kind))
    count = cacheUpdateBytes(op);

  if (failed(count))
    return ho::detail::getDefaultBytesAccessed(op);
  return *count;
}

bool ho::isColumnSplittableMatmul(ComputeOp op) {
  if (op.getKind() != "matmul" || op.getInputs().size() != 2 ||
      op->getNumResults() != 1 || op.getFlops() || op.getBytes() ||
      op.getTiedOperands())
    return false;
  auto weight = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return weight && weight.getRank() == 2 && result && result.hasStaticShape() &&
         llvm::any_of(op->getResult(0).getUsers(), [](Operation *user) {
           return !user->hasTrait<OpTrait::ReturnLike>();
         });
}
