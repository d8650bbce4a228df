//===- InPlaceWrites.cpp - Which results reuse their init's buffer --------===//

#include "hyperoffload/Analysis/InPlaceWrites.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;
using namespace mlir::ho;

bool ho::readsOperand(OpOperand &use) {
  Operation *owner = use.getOwner();
  auto dps = dyn_cast<DestinationStyleOpInterface>(owner);
  if (!dps || !dps.isDpsInit(&use))
    return true;
  if (isa<bufferization::MaterializeInDestinationOp>(owner))
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(owner))
    return linalgOp.payloadUsesValueFromOperand(&use);
  // tensor.insert_slice and the like keep the init's other elements.
  return true;
}

Value ho::getFixedAliasSource(OpResult result) {
  return llvm::TypeSwitch<Operation *, Value>(result.getOwner())
      .Case<AwaitOp>([](AwaitOp await) { return await.getFuture(); })
      .Case<ComputeOp>([&](ComputeOp compute) -> Value {
        OpOperand *tied = compute.getTiedOperand(result);
        return tied ? tied->get() : Value();
      })
      .Default([](Operation *) { return Value(); });
}

Value ho::getReusableSource(OpResult result) {
  Operation *op = result.getOwner();
  // Every view op takes its source as operand 0.
  if (isTensorViewOp(op))
    return op->getOperand(0);
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps)
    return Value();
  OpOperand *init = dps.getTiedOpOperand(result);
  return init ? init->get() : Value();
}

bool ho::isReadOnlyValue(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

bool ho::isUndefinedValue(Value value) {
  return value.getDefiningOp<tensor::EmptyOp>() != nullptr;
}

/// Whether `use`, an input of its owner, is read element by element into
/// the same element of every init, so that writing the result over it in
/// place is safe.
static bool isReadInStep(OpOperand &use) {
  // A copy into its destination.
  if (isa<bufferization::MaterializeInDestinationOp>(use.getOwner()))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!linalgOp || linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
    return false;
  AffineMap map = linalgOp.getMatchingIndexingMap(&use);
  return llvm::all_of(linalgOp.getDpsInitsMutable(), [&](OpOperand &init) {
    return linalgOp.getMatchingIndexingMap(&init) == map;
  });
}

namespace {
/// A read of a version, at a program point.
struct VersionRead {
  unsigned point;
  /// Harmless when the op at `point` is the one that writes the next
  /// version: it reads the value it overwrites, or reads in step with
  /// `stepInit`, its init, which must then hold this version or one it
  /// was written from (or written over).
  bool byWriter;
  Value stepInit;
};

/// One version of a buffer's contents: a value and the views that share
/// it. Views join their source's version (a union-find over versions).
struct Version {
  unsigned parent;
  /// The version an in-place write made this one from, if any.
  std::optional<unsigned> previous;
  /// The point of the write (or definition) that made it.
  unsigned start;
  /// A tensor.empty's contents: nothing can depend on reading them.
  bool undefined;
  SmallVector<VersionRead, 2> reads;
};

/// The versions that share one buffer, and the points that write it.
struct BufferVersions {
  SmallVector<unsigned, 2> versions;
  std::set<unsigned> writes;
  bool readOnly = false;
  unsigned conflicts = 0;
};

/// Decides the in-place writes of one block; see the header.
class InPlaceDecider {
public:
  explicit InPlaceDecider(Block &body);
  void decide(llvm::DenseSet<Value> &inPlace);

private:
  void addVersions();
  void addReads();
  unsigned findVersion(unsigned id) const;
  /// Whether one of two versions was written, in place, from the other.
  bool areWrittenFromEachOther(unsigned first, unsigned second) const;
  /// Whether `read` of version `id`, at the point of the buffer's next
  /// write, reads what it needs before the writer overwrites it.
  bool isHarmlessAtWrite(const VersionRead &read, unsigned id) const;
  /// How many reads of `buffer`'s versions come after their version's end.
  unsigned countConflicts(const BufferVersions &buffer) const;
  /// Puts `result` in the buffer of `source`: as a new version written at
  /// `point`, or as a view of `source`'s version where `point` is unset.
  /// Only if that adds no conflict, unless `force`d. Returns whether it did.
  bool join(Value source, Value result, std::optional<unsigned> point,
            bool force);
  /// Records that a copy of `source` is read at `point`.
  void addCopyRead(Value source, unsigned point);

  Block &body;
  DenseMap<Operation *, unsigned> pointOf;
  unsigned exitPoint;
  DenseMap<Value, unsigned> versionOf;
  SmallVector<Version> versions;
  /// The buffer each version lives in, named by its first version, and
  /// the buffers by that name.
  SmallVector<unsigned> bufferOf;
  SmallVector<BufferVersions> buffers;
};
} // namespace

InPlaceDecider::InPlaceDecider(Block &body) : body(body) {
  for (Operation &op : body)
    pointOf[&op] = pointOf.size() + 1;
  exitPoint = pointOf.size() + 1;
  addVersions();
  addReads();
  // Tied results of ho.compute overwrite their operand, conflict or not;
  // ho-verify-schedule reports the conflicts.
  for (Operation &op : body) {
    if (isa<AwaitOp>(op))
      continue;
    for (OpResult result : op.getResults())
      if (Value source = getFixedAliasSource(result))
        join(source, result, pointOf.lookup(&op), /*force=*/true);
  }
}

void InPlaceDecider::addVersions() {
  auto addVersion = [&](Value value, unsigned point, bool readOnly,
                        bool undefined) {
    // Only tensors and the futures that hold fetched ones have buffers.
    if (!isa<TensorType, FutureType>(value.getType()))
      return;
    unsigned id = versions.size();
    versions.push_back({id, std::nullopt, point, undefined, {}});
    bufferOf.push_back(id);
    BufferVersions &buffer = buffers.emplace_back();
    buffer.versions.push_back(id);
    buffer.readOnly = readOnly;
    versionOf[value] = id;
  };
  for (BlockArgument arg : body.getArguments())
    addVersion(arg, 0, /*readOnly=*/false, /*undefined=*/false);
  for (Operation &op : body) {
    for (OpResult result : op.getResults()) {
      // An awaited tensor is the contents of its future.
      if (auto await = dyn_cast<AwaitOp>(op)) {
        auto future = versionOf.find(await.getFuture());
        if (future != versionOf.end()) {
          versionOf[result] = future->second;
          continue;
        }
      }
      addVersion(result, pointOf.lookup(&op), isReadOnlyValue(result),
                 isUndefinedValue(result));
    }
  }
}

void InPlaceDecider::addReads() {
  for (Operation &op : body) {
    unsigned point =
        op.hasTrait<OpTrait::ReturnLike>() ? exitPoint : pointOf.lookup(&op);
    op.walk([&](Operation *user) {
      for (OpOperand &use : user->getOpOperands()) {
        auto version = versionOf.find(use.get());
        // A view or an await only names the contents; its users read them.
        if (version == versionOf.end() || !readsOperand(use) ||
            versions[version->second].undefined || isTensorViewOp(user) ||
            isa<AwaitOp>(user))
          continue;
        auto dps = dyn_cast<DestinationStyleOpInterface>(user);
        bool isInit = dps && dps.isDpsInit(&use);
        bool inStep = !isInit && isReadInStep(use);
        // A ho.compute kernel that updates an operand in place reads all
        // of its operands as it needs them: that is its contract.
        bool byWriter = user == &op && point != exitPoint &&
                        (isInit || inStep || isa<ComputeOp>(user));
        Value stepInit = inStep && dps ? dps.getDpsInits().front() : Value();
        versions[version->second].reads.push_back({point, byWriter, stepInit});
      }
    });
  }
}

unsigned InPlaceDecider::findVersion(unsigned id) const {
  while (versions[id].parent != id)
    id = versions[id].parent;
  return id;
}

bool InPlaceDecider::areWrittenFromEachOther(unsigned first,
                                             unsigned second) const {
  auto reaches = [&](unsigned from, unsigned to) {
    for (std::optional<unsigned> id = from; id; id = versions[*id].previous)
      if (findVersion(*id) == to)
        return true;
    return false;
  };
  return reaches(first, second) || reaches(second, first);
}

bool InPlaceDecider::isHarmlessAtWrite(const VersionRead &read,
                                       unsigned id) const {
  if (!read.byWriter || !read.stepInit)
    return read.byWriter;
  auto init = versionOf.find(read.stepInit);
  return init != versionOf.end() &&
         areWrittenFromEachOther(findVersion(init->second), id);
}

unsigned InPlaceDecider::countConflicts(const BufferVersions &buffer) const {
  unsigned conflicts = 0;
  for (unsigned id : buffer.versions) {
    const Version &version = versions[id];
    if (version.undefined)
      continue;
    auto next = buffer.writes.upper_bound(version.start);
    if (next == buffer.writes.end())
      continue;
    for (const VersionRead &read : version.reads)
      if (read.point > *next ||
          (read.point == *next && !isHarmlessAtWrite(read, id)))
        ++conflicts;
  }
  return conflicts;
}

bool InPlaceDecider::join(Value source, Value result,
                          std::optional<unsigned> point, bool force) {
  auto sourceIt = versionOf.find(source), resultIt = versionOf.find(result);
  if (sourceIt == versionOf.end() || resultIt == versionOf.end())
    return false;
  unsigned sourceVersion = findVersion(sourceIt->second);
  unsigned resultVersion = findVersion(resultIt->second);
  unsigned sourceBuffer = bufferOf[sourceVersion];
  unsigned resultBuffer = bufferOf[resultVersion];
  if (sourceBuffer == resultBuffer)
    return false;
  BufferVersions &into = buffers[sourceBuffer];
  BufferVersions &from = buffers[resultBuffer];
  if (!force && point &&
      (into.readOnly || into.writes.count(*point) || from.writes.count(*point)))
    return false;

  // Join, count the conflicts, and undo the join if it added any.
  BufferVersions intoBefore = into, fromBefore = from;
  Version &joined = versions[sourceVersion];
  Version &added = versions[resultVersion];
  size_t readsBefore = joined.reads.size();
  into.versions.append(from.versions);
  into.writes.insert(from.writes.begin(), from.writes.end());
  into.readOnly |= from.readOnly;
  if (point) {
    into.writes.insert(*point);
    added.previous = sourceVersion;
  } else {
    // A view's reads are reads of its source's contents.
    if (!joined.undefined)
      joined.reads.append(added.reads);
    added.parent = sourceVersion;
    llvm::erase(into.versions, resultVersion);
  }
  for (unsigned id : fromBefore.versions)
    bufferOf[id] = sourceBuffer;
  unsigned conflicts = countConflicts(into);
  if (!force && conflicts > intoBefore.conflicts + fromBefore.conflicts) {
    into = std::move(intoBefore);
    from = std::move(fromBefore);
    for (unsigned id : from.versions)
      bufferOf[id] = resultBuffer;
    added.previous.reset();
    added.parent = resultVersion;
    joined.reads.truncate(readsBefore);
    return false;
  }
  into.conflicts = conflicts;
  from = BufferVersions();
  return true;
}

void InPlaceDecider::addCopyRead(Value source, unsigned point) {
  auto it = versionOf.find(source);
  if (it == versionOf.end())
    return;
  Version &version = versions[findVersion(it->second)];
  if (version.undefined)
    return;
  version.reads.push_back({point, /*byWriter=*/false, Value()});
  BufferVersions &buffer = buffers[bufferOf[findVersion(it->second)]];
  buffer.conflicts = countConflicts(buffer);
}

void InPlaceDecider::decide(llvm::DenseSet<Value> &inPlace) {
  for (Operation &op : llvm::reverse(body)) {
    bool isView = isTensorViewOp(&op);
    for (OpResult result : llvm::reverse(op.getResults())) {
      Value source = getReusableSource(result);
      if (!source)
        continue;
      unsigned point = pointOf.lookup(&op);
      if (join(source, result, isView ? std::nullopt : std::optional(point),
               /*force=*/false)) {
        inPlace.insert(result);
        continue;
      }
      // A view that does not share its source's buffer is a copy of it.
      if (isView)
        addCopyRead(source, point);
    }
  }
}

InPlaceWrites::InPlaceWrites(Block &body) {
  InPlaceDecider(body).decide(inPlace);
}
