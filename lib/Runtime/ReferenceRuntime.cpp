//===- ReferenceRuntime.cpp - The runtime interface on host memory --------===//

#include "hyperoffload/Runtime/ReferenceRuntime.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace mlir::ho;

namespace {
struct TierCopy {
  int32_t tier;
  std::vector<int8_t> bytes;
};

/// A routed prefetch: its slots and the expert each holds (-1: none).
struct RoutedGroup {
  int64_t selectionOffset;
  int64_t numPicks;
  int64_t deviceOffset;
  int64_t slotBytes;
  std::vector<int64_t> slotExpert;
};

struct ReferenceState {
  std::vector<int8_t> arena;
  /// Indexed by handle.
  std::vector<TierCopy> copies;
  std::vector<RoutedGroup> groups;
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
  state.groups.clear();
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

static RoutedGroup &getGroup(const char *call, ho_routed_t handle) {
  std::vector<RoutedGroup> &groups = getState().groups;
  if (handle < 0 || handle >= static_cast<int64_t>(groups.size()))
    llvm::report_fatal_error(
        llvm::formatv("{0}: no routed prefetch has handle {1}", call, handle));
  return groups[handle];
}

/// Whether the `numPicks` int32 ids at `offset` in the arena name `expert`.
static bool isPicked(const char *call, int64_t offset, int64_t numPicks,
                     int64_t expert) {
  const int8_t *ids = getArenaRange(call, offset, numPicks * 4);
  for (int64_t pick = 0; pick < numPicks; ++pick) {
    int32_t id;
    std::memcpy(&id, ids + 4 * pick, sizeof(id));
    if (id == expert)
      return true;
  }
  return false;
}

/// Copies `source` into slot `slot` of `group`, checked as a prefetch is.
static void fillSlot(const char *call, RoutedGroup &group, int64_t slot,
                     int32_t tier, int64_t expert, ho_remote_t source) {
  TierCopy &copy = getCopy(call, source);
  if (copy.tier != tier ||
      static_cast<int64_t>(copy.bytes.size()) != group.slotBytes)
    llvm::report_fatal_error(llvm::formatv(
        "{0}: copy {1} holds {2} bytes in tier {3}, not a {4}-byte expert in "
        "tier {5}",
        call, source, copy.bytes.size(), copy.tier, group.slotBytes, tier));
  std::memcpy(getArenaRange(call, group.deviceOffset + slot * group.slotBytes,
                            group.slotBytes),
              copy.bytes.data(), group.slotBytes);
  group.slotExpert[slot] = expert;
}

extern "C" ho_routed_t ho_routed_begin(int64_t selection_offset,
                                       int64_t num_picks, int64_t device_offset,
                                       int64_t slot_bytes, int64_t slots) {
  getArenaRange("ho_routed_begin", device_offset, slots * slot_bytes);
  getState().groups.push_back({selection_offset, num_picks, device_offset,
                               slot_bytes, std::vector<int64_t>(slots, -1)});
  getState().log.push_back(llvm::formatv(
      "routed begin selection={0} picks={1} offset={2} "
      "slot_bytes={3} slots={4}",
      selection_offset, num_picks, device_offset, slot_bytes, slots));
  return getState().groups.size() - 1;
}

extern "C" void ho_routed_offer(ho_routed_t handle, int32_t tier, int32_t queue,
                                int64_t expert_id, ho_remote_t source) {
  RoutedGroup &group = getGroup("ho_routed_offer", handle);
  if (!isPicked("ho_routed_offer", group.selectionOffset, group.numPicks,
                expert_id))
    return;
  auto free = std::find(group.slotExpert.begin(), group.slotExpert.end(), -1);
  if (free == group.slotExpert.end())
    return;
  fillSlot("ho_routed_offer", group, free - group.slotExpert.begin(), tier,
           expert_id, source);
  getState().log.push_back(llvm::formatv(
      "routed fetch group={0} tier={1} queue={2} expert={3} slot={4}", handle,
      tier, queue, expert_id, free - group.slotExpert.begin()));
}

extern "C" ho_event_t ho_routed_event(ho_routed_t handle) {
  getGroup("ho_routed_event", handle);
  return handle;
}

extern "C" void ho_routed_ensure(ho_routed_t handle, int64_t selection_offset,
                                 int64_t num_picks, int32_t tier, int32_t queue,
                                 int64_t expert_id, ho_remote_t source) {
  const char *call = "ho_routed_ensure";
  RoutedGroup &group = getGroup(call, handle);
  std::vector<int64_t> &slots = group.slotExpert;
  if (!isPicked(call, selection_offset, num_picks, expert_id) ||
      std::find(slots.begin(), slots.end(), expert_id) != slots.end())
    return;
  // A slot nobody picks: empty, or a wrong guess.
  auto spare = std::find_if(slots.begin(), slots.end(), [&](int64_t expert) {
    return expert < 0 || !isPicked(call, selection_offset, num_picks, expert);
  });
  if (spare == slots.end())
    llvm::report_fatal_error(llvm::formatv(
        "{0}: every slot of group {1} holds a picked expert, and expert {2} "
        "is picked too; a plan gives a group a slot per pick",
        call, handle, expert_id));
  fillSlot(call, group, spare - slots.begin(), tier, expert_id, source);
  getState().log.push_back(llvm::formatv(
      "routed miss group={0} tier={1} queue={2} expert={3} slot={4}", handle,
      tier, queue, expert_id, spare - slots.begin()));
}

extern "C" int64_t ho_routed_slot_expert(ho_routed_t handle, int64_t slot) {
  RoutedGroup &group = getGroup("ho_routed_slot_expert", handle);
  if (slot < 0 || slot >= static_cast<int64_t>(group.slotExpert.size()))
    llvm::report_fatal_error(llvm::formatv(
        "ho_routed_slot_expert: group {0} has no slot {1}", handle, slot));
  return group.slotExpert[slot];
}
