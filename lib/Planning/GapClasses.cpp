//===- GapClasses.cpp - Gap candidates no timing tells apart --------------===//

#include "GapClasses.h"

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::ho;

GapClasses::GapClasses(const PlanningContext &context,
                       ArrayRef<GapCandidate> candidates) {
  // Everything about a gap that the context's timings read; the carrier
  // only says which value the writer reloads.
  using Key = std::tuple<int64_t, ArrayRef<unsigned>, unsigned, unsigned,
                         unsigned, unsigned>;
  llvm::DenseMap<Key, unsigned> classes;
  classOf.reserve(candidates.size());
  for (auto [index, gap] : llvm::enumerate(candidates)) {
    const BufferInfo &buffer = context.getLiveness().getBuffer(gap.buffer);
    unsigned kind = buffer.isArgument() | gap.clean << 1;
    unsigned storeReady = context.getStoreReadyPoint(gap.buffer, gap.lastUse);
    Key key(buffer.size, context.getUsePoints(gap.buffer), gap.lastUse,
            gap.nextUse, kind, storeReady);
    auto [it, inserted] = classes.try_emplace(key, untaken.size());
    if (inserted)
      untaken.emplace_back();
    classOf.push_back(it->second);
    untaken[it->second].push_back(index);
  }
}

void GapClasses::take(size_t candidate) {
  SmallVector<size_t, 1> &members = untaken[classOf[candidate]];
  auto it = llvm::lower_bound(members, candidate);
  if (it != members.end() && *it == candidate)
    members.erase(it);
}
