//===- RuntimeBindings.cpp - JIT-compiled plans call the threaded runtime -===//

#include "RuntimeBindings.h"

#include "hyperoffload/Runtime/HyperOffloadRuntime.h"
#include "hyperoffload/Runtime/RuntimeSymbols.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::ho;

namespace {
/// The run in progress.
struct ActiveRun {
  ThreadedRuntime *runtime = nullptr;
  const std::vector<std::string> *sites = nullptr;
  /// Owners ho_integrity_write hands out, above every argument number.
  int64_t nextOwner = int64_t(1) << 32;
};

std::mutex runMutex;
ActiveRun active;

ThreadedRuntime &getRuntime(llvm::StringRef call) {
  if (!active.runtime)
    llvm::report_fatal_error(llvm::formatv(
        "{0}: called by a function that was compiled without a plan", call));
  return *active.runtime;
}

llvm::StringRef getSite(int64_t site) {
  if (site < 0 || site >= static_cast<int64_t>(active.sites->size()))
    return "<unknown op>";
  return (*active.sites)[site];
}

void arenaBase(ho_arena_t *arena) {
  ThreadedRuntime &runtime = getRuntime(kArenaBase);
  arena->allocated = runtime.getArena();
  arena->aligned = runtime.getArena();
  arena->offset = 0;
  arena->size = runtime.getArenaSize();
  arena->stride = 1;
}

ho_remote_t offloadStart(int32_t tier, int32_t queue, int64_t offset,
                         int64_t bytes) {
  return getRuntime(kOffloadStart).offloadStart(tier, queue, offset, bytes);
}

void offloadWait(ho_remote_t copy) {
  getRuntime(kOffloadWait).offloadWait(copy);
}

ho_event_t prefetchStart(int32_t tier, int32_t queue, ho_remote_t source,
                         int64_t offset, int64_t bytes) {
  return getRuntime(kPrefetchStart)
      .prefetchStart(tier, queue, source, offset, bytes);
}

void eventWait(ho_event_t event) { getRuntime(kEventWait).eventWait(event); }

ho_remote_t offloadSliceStart(int32_t tier, int32_t queue, ho_remote_t dest,
                              int64_t offset, int64_t runBytes, int64_t runs,
                              int64_t destOffset, int64_t destStride) {
  return getRuntime(kOffloadSliceStart)
      .offloadSliceStart(tier, queue, dest, offset, runBytes, runs, destOffset,
                         destStride);
}

ho_routed_t routedBegin(int64_t selectionOffset, int64_t numPicks,
                        int64_t offset, int64_t slotBytes, int64_t slots) {
  return getRuntime(kRoutedBegin)
      .routedBegin(selectionOffset, numPicks, offset, slotBytes, slots);
}

void routedOffer(ho_routed_t group, int32_t tier, int32_t queue,
                 int64_t expertId, ho_remote_t source) {
  getRuntime(kRoutedOffer).routedOffer(group, tier, queue, expertId, source);
}

ho_event_t routedEvent(ho_routed_t group) {
  return getRuntime(kRoutedEvent).routedEvent(group);
}

void routedEnsure(ho_routed_t group, int64_t selectionOffset, int64_t numPicks,
                  int32_t tier, int32_t queue, int64_t expertId,
                  ho_remote_t source) {
  getRuntime(kRoutedEnsure)
      .routedEnsure(group, selectionOffset, numPicks, tier, queue, expertId,
                    source);
}

int64_t routedSlotExpert(ho_routed_t group, int64_t slot) {
  return getRuntime(kRoutedSlotExpert).routedSlotExpert(group, slot);
}

ho_blocks_t blocksBegin(int32_t tier, int32_t queue, ho_remote_t source,
                        int64_t selectionOffset, int64_t rows,
                        int64_t picksPerRow, int64_t rowBytes,
                        int64_t blockBytes, int64_t offset) {
  return getRuntime(kBlocksBegin)
      .blocksBegin(tier, queue, source, selectionOffset, rows, picksPerRow,
                   rowBytes, blockBytes, offset);
}

ho_event_t blocksEvent(ho_blocks_t group) {
  return getRuntime(kBlocksEvent).blocksEvent(group);
}

void blocksEnsure(ho_blocks_t group, int64_t selectionOffset) {
  getRuntime(kBlocksEnsure).blocksEnsure(group, selectionOffset);
}

void integrityRead(int64_t offset, int64_t bytes, int64_t owner, int64_t site) {
  getRuntime(kIntegrityRead).checkRead(offset, bytes, owner, getSite(site));
}

void integrityReadSlots(ho_routed_t group, int64_t site) {
  getRuntime(kIntegrityReadSlots).checkSlotsRead(group, getSite(site));
}

int64_t integrityWrite(int64_t offset, int64_t bytes, int64_t site) {
  int64_t owner = active.nextOwner++;
  getRuntime(kIntegrityWrite).recordWrite(offset, bytes, owner, getSite(site));
  return owner;
}

int64_t integrityCopyOwner(ho_remote_t copy) {
  return getRuntime(kIntegrityCopyOwner).getCopyOwner(copy);
}

} // namespace

llvm::orc::SymbolMap
mlir::ho::getRuntimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto bind = [&](llvm::StringRef name, auto *function) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
  };
  bind(("_mlir_ciface_" + kArenaBase).str(), &arenaBase);
  bind(kOffloadStart, &offloadStart);
  bind(kOffloadWait, &offloadWait);
  bind(kPrefetchStart, &prefetchStart);
  bind(kEventWait, &eventWait);
  bind(kOffloadSliceStart, &offloadSliceStart);
  bind(kRoutedBegin, &routedBegin);
  bind(kRoutedOffer, &routedOffer);
  bind(kRoutedEvent, &routedEvent);
  bind(kRoutedEnsure, &routedEnsure);
  bind(kRoutedSlotExpert, &routedSlotExpert);
  bind(kBlocksBegin, &blocksBegin);
  bind(kBlocksEvent, &blocksEvent);
  bind(kBlocksEnsure, &blocksEnsure);
  bind(kIntegrityRead, &integrityRead);
  bind(kIntegrityReadSlots, &integrityReadSlots);
  bind(kIntegrityWrite, &integrityWrite);
  bind(kIntegrityCopyOwner, &integrityCopyOwner);
  bind(kClockNanoseconds, &mlir::ho::clockNanoseconds);
  bind(kWaitUntilNanoseconds, &mlir::ho::waitUntilNanoseconds);
  return symbols;
}

RuntimeBinding::RuntimeBinding(ThreadedRuntime *runtime,
                               const std::vector<std::string> &sites)
    : lock(runMutex) {
  active = {runtime, &sites};
}

RuntimeBinding::~RuntimeBinding() { active = {}; }
