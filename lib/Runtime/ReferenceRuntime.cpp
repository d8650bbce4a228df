//===- ReferenceRuntime.cpp - The runtime interface on host memory --------===//

#include "hyperoffload/Runtime/ReferenceRuntime.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <string>

using namespace mlir::ho;

namespace {
struct TierCopy {
  int32_t tier;
  std::vector<int8_t> bytes;
};

struct ReferenceState {
  std::vector<int8_t> arena;
  /// Indexed by handle.
  std::vector<TierCopy> copies;
  std::vector<std::string> log;
};
} // namespace

static ReferenceState &getState() {
  static ReferenceState state;
  return state;
}

/// The arena bytes [offset, offset + bytes), or a fatal error naming the
/// call when they are outside it: a plan never asks for that.
static int8_t *getArenaRange(const char *call, int64_t offset, int64_t bytes) {
  std::vector<int8_t> &arena = getState().arena;
  if (offset < 0 || bytes < 0 ||
      offset + bytes > static_cast<int64_t>(arena.size()))
    llvm::report_fatal_error(
        llvm::formatv("{0}: bytes [{1}, {2}) are outside the {3}-byte arena",
                      call, offset, offset + bytes, arena.size()));
  return arena.data() + offset;
}

static TierCopy &getCopy(const char *call, ho_remote_t handle) {
  std::vector<TierCopy> &copies = getState().copies;
  if (handle < 0 || handle >= static_cast<int64_t>(copies.size()))
    llvm::report_fatal_error(
        llvm::formatv("{0}: no tier copy has handle {1}", call, handle));
  return copies[handle];
}

void mlir::ho::resetReferenceRuntime(int64_t arenaBytes) {
  ReferenceState &state = getState();
  state.arena.assign(arenaBytes, 0);
  state.copies.clear();
  state.log.clear();
}

ho_remote_t mlir::ho::createReferenceCopy(int32_t tier,
                                          const std::vector<int8_t> &bytes) {
  getState().copies.push_back({tier, bytes});
  return getState().copies.size() - 1;
}

const std::vector<int8_t> &mlir::ho::getReferenceCopy(ho_remote_t copy) {
  return getCopy("getReferenceCopy", copy).bytes;
}

int8_t *mlir::ho::getReferenceArena() { return getState().arena.data(); }

const std::vector<std::string> &mlir::ho::getReferenceCallLog() {
  return getState().log;
}

extern "C" void _mlir_ciface_ho_arena_base(ho_arena_t *arena) {
  std::vector<int8_t> &bytes = getState().arena;
  *arena = {bytes.data(), bytes.data(), 0, static_cast<int64_t>(bytes.size()),
            1};
}

extern "C" ho_remote_t ho_offload_start(int32_t tier, int32_t queue,
                                        int64_t device_offset, int64_t bytes) {
  const int8_t *source =
      getArenaRange("ho_offload_start", device_offset, bytes);
  getState().log.push_back(
      llvm::formatv("offload tier={0} queue={1} offset={2} bytes={3}", tier,
                    queue, device_offset, bytes));
  return createReferenceCopy(tier, std::vector<int8_t>(source, source + bytes));
}

extern "C" void ho_offload_wait(ho_remote_t copy) {
  getCopy("ho_offload_wait", copy);
  getState().log.push_back(llvm::formatv("wait offload {0}", copy));
}

extern "C" ho_event_t ho_prefetch_start(int32_t tier, int32_t queue,
                                        ho_remote_t source,
                                        int64_t device_offset, int64_t bytes) {
  TierCopy &copy = getCopy("ho_prefetch_start", source);
  if (copy.tier != tier || static_cast<int64_t>(copy.bytes.size()) != bytes)
    llvm::report_fatal_error(llvm::formatv(
        "ho_prefetch_start: copy {0} holds {1} bytes in tier {2}, not {3} "
        "bytes in tier {4}",
        source, copy.bytes.size(), copy.tier, bytes, tier));
  std::memcpy(getArenaRange("ho_prefetch_start", device_offset, bytes),
              copy.bytes.data(), bytes);
  getState().log.push_back(
      llvm::formatv("prefetch tier={0} queue={1} copy={2} offset={3} "
                    "bytes={4}",
                    tier, queue, source, device_offset, bytes));
  // Copies complete when issued: the event is the copy it read.
  return source;
}

extern "C" void ho_event_wait(ho_event_t event) {
  getState().log.push_back(llvm::formatv("wait event {0}", event));
}
