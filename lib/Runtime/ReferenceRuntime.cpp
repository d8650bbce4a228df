//===- ReferenceRuntime.cpp - The runtime interface on host memory --------===//

#include "hyperoffload/Runtime/ReferenceRuntime.h"

#include "SelectionGroups.h"

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

using RoutedGroup = RoutedSlots;
using BlockGroup = BlockPlaces;

struct ReferenceState {
  std::vector<int8_t> arena;
  /// Indexed by handle.
  std::vector<TierCopy> copies;
  std::vector<RoutedGroup> groups;
  std::vector<BlockGroup> blockGroups;
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
  state.blockGroups.clear();
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

static BlockGroup &getBlockGroup(const char *call, ho_blocks_t handle) {
  std::vector<BlockGroup> &groups = getState().blockGroups;
  if (handle < 0 || handle >= static_cast<int64_t>(groups.size()))
    llvm::report_fatal_error(
        llvm::formatv("{0}: no block prefetch has handle {1}", call, handle));
  return groups[handle];
}

/// The `count` int32 block indices at `offset` in the arena, each checked
/// to be a block of a row of the group.
static std::vector<int32_t> readBlockPicks(const char *call, int64_t offset,
                                           int64_t count,
                                           const BlockGroup &group) {
  std::vector<int32_t> picks(count);
  std::memcpy(picks.data(), getArenaRange(call, offset, count * 4), count * 4);
  group.checkPicks(call, picks);
  return picks;
}

/// Copies block `block` of row `row` of the group's source into place
/// `place` (row-major over rows and picks).
static void fillPlace(const char *call, BlockGroup &group, int64_t place,
                      int32_t block) {
  TierCopy &copy = getCopy(call, group.source);
  int64_t row = place / group.picksPerRow;
  int64_t start = row * group.rowBytes + block * group.blockBytes;
  int64_t bytes =
      std::min(group.blockBytes, group.rowBytes - block * group.blockBytes);
  if (start + bytes > static_cast<int64_t>(copy.bytes.size()))
    llvm::report_fatal_error(llvm::formatv(
        "{0}: copy {1} holds {2} bytes, fewer than {3} rows of {4}", call,
        group.source, copy.bytes.size(), group.rows, group.rowBytes));
  int8_t *to = getArenaRange(
      call, group.deviceOffset + place * group.blockBytes, group.blockBytes);
  std::memcpy(to, copy.bytes.data() + start, bytes);
  std::memset(to + bytes, 0, group.blockBytes - bytes);
  group.placeBlock[place] = block;
}

extern "C" ho_blocks_t
ho_blocks_begin(int32_t tier, int32_t queue, ho_remote_t source,
                int64_t selection_offset, int64_t rows, int64_t picks_per_row,
                int64_t row_bytes, int64_t block_bytes, int64_t device_offset) {
  const char *call = "ho_blocks_begin";
  if (getCopy(call, source).tier != tier)
    llvm::report_fatal_error(
        llvm::formatv("{0}: copy {1} is not in tier {2}", call, source, tier));
  int64_t places = rows * picks_per_row;
  getArenaRange(call, device_offset, places * block_bytes);
  getState().blockGroups.push_back({tier, queue, source, rows, picks_per_row,
                                    row_bytes, block_bytes, device_offset,
                                    std::vector<int32_t>(places, -1)});
  ho_blocks_t handle = getState().blockGroups.size() - 1;
  BlockGroup &group = getState().blockGroups.back();
  std::vector<int32_t> picks =
      readBlockPicks(call, selection_offset, places, group);
  for (int64_t place = 0; place < places; ++place)
    fillPlace(call, group, place, picks[place]);
  getState().log.push_back(llvm::formatv(
      "blocks begin tier={0} queue={1} copy={2} selection={3} rows={4} "
      "picks={5} offset={6}",
      tier, queue, source, selection_offset, rows, picks_per_row,
      device_offset));
  return handle;
}

extern "C" ho_event_t ho_blocks_event(ho_blocks_t handle) {
  getBlockGroup("ho_blocks_event", handle);
  return handle;
}

extern "C" void ho_blocks_ensure(ho_blocks_t handle, int64_t selection_offset) {
  const char *call = "ho_blocks_ensure";
  BlockGroup &group = getBlockGroup(call, handle);
  int64_t k = group.picksPerRow;
  std::vector<int32_t> picks =
      readBlockPicks(call, selection_offset, group.rows * k, group);
  int64_t moved = 0, fetched = 0;
  for (int64_t row = 0; row < group.rows; ++row) {
    // The places of a row as the prefetch left them, then each pick put in
    // its own: from where the row holds it, else from the tier.
    int8_t *rowBase =
        getArenaRange(call, group.deviceOffset + row * k * group.blockBytes,
                      k * group.blockBytes);
    std::vector<int8_t> held(rowBase, rowBase + k * group.blockBytes);
    std::vector<int32_t> heldBlock(group.placeBlock.begin() + row * k,
                                   group.placeBlock.begin() + (row + 1) * k);
    for (int64_t pick = 0; pick < k; ++pick) {
      int64_t place = row * k + pick;
      int32_t block = picks[place];
      auto at = std::find(heldBlock.begin(), heldBlock.end(), block);
      if (at == heldBlock.end()) {
        fillPlace(call, group, place, block);
        ++fetched;
        continue;
      }
      int64_t from = at - heldBlock.begin();
      if (from != pick)
        ++moved;
      std::memcpy(rowBase + pick * group.blockBytes,
                  held.data() + from * group.blockBytes, group.blockBytes);
      group.placeBlock[place] = block;
    }
  }
  getState().log.push_back(
      llvm::formatv("blocks ensure group={0} selection={1} moved={2} "
                    "fetched={3}",
                    handle, selection_offset, moved, fetched));
}

extern "C" ho_remote_t
ho_offload_slice_start(int32_t tier, int32_t queue, ho_remote_t dest,
                       int64_t device_offset, int64_t run_bytes, int64_t runs,
                       int64_t dest_offset, int64_t dest_stride) {
  const char *call = "ho_offload_slice_start";
  TierCopy &copy = getCopy(call, dest);
  const int8_t *source = getArenaRange(call, device_offset, runs * run_bytes);
  for (int64_t run = 0; run < runs; ++run) {
    int64_t at = dest_offset + run * dest_stride;
    if (copy.tier != tier || at < 0 ||
        at + run_bytes > static_cast<int64_t>(copy.bytes.size()))
      llvm::report_fatal_error(llvm::formatv(
          "{0}: run {1} writes bytes [{2}, {3}) of copy {4}, which holds {5} "
          "bytes in tier {6}, not tier {7}",
          call, run, at, at + run_bytes, dest, copy.bytes.size(), copy.tier,
          tier));
    std::memcpy(copy.bytes.data() + at, source + run * run_bytes, run_bytes);
  }
  getState().log.push_back(llvm::formatv(
      "offload slice tier={0} queue={1} copy={2} offset={3} runs={4}x{5} "
      "at={6} stride={7}",
      tier, queue, dest, device_offset, runs, run_bytes, dest_offset,
      dest_stride));
  return dest;
}

// Every copy here completes when it is issued, so no read can come before
// its data: the integrity hooks only check that the bytes are in the arena.
extern "C" void ho_integrity_read(int64_t offset, int64_t bytes,
                                  int64_t /*owner*/, int64_t /*site*/) {
  getArenaRange("ho_integrity_read", offset, bytes);
}

extern "C" void ho_integrity_read_slots(ho_routed_t group, int64_t /*site*/) {
  getGroup("ho_integrity_read_slots", group);
}

extern "C" int64_t ho_integrity_write(int64_t offset, int64_t bytes,
                                      int64_t /*site*/) {
  static int64_t nextOwner = 0;
  getArenaRange("ho_integrity_write", offset, bytes);
  return nextOwner++;
}

extern "C" int64_t ho_integrity_copy_owner(ho_remote_t copy) {
  getCopy("ho_integrity_copy_owner", copy);
  return -1;
}
