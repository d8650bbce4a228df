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

void integrityRead(int64_t offset, int64_t bytes, int64_t owner, int64_t site) {
  getRuntime(kIntegrityRead).checkRead(offset, bytes, owner, getSite(site));
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
  bind(kIntegrityRead, &integrityRead);
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
