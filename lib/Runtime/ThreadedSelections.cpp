//===- ThreadedSelections.cpp - Routed experts and picked blocks ----------===//
//
// The threaded runtime's ho_routed_* and ho_blocks_* calls: prefetches
// whose picks compute has written into the arena (a router's output, or a
// prediction of it), and the ensure calls right before the kernel that
// reads them, which fetch what a wrong prediction missed while compute
// waits.
//
//===----------------------------------------------------------------------===//

#include "ThreadedRuntimeState.h"

#include <algorithm>
#include <cstring>

using namespace mlir::ho;
using namespace mlir::ho::threaded;

namespace {
/// Whether `picks` name `expert`.
bool isPicked(llvm::ArrayRef<int32_t> picks, int64_t expert) {
  return llvm::is_contained(picks, expert);
}
} // namespace

/// The group `handle` names among `groups`, or an error naming `call`.
template <typename Group>
static Group &getGroup(std::vector<Group> &groups, const char *call,
                       const char *kind, int64_t handle) {
  if (handle < 0 || handle >= static_cast<int64_t>(groups.size()))
    llvm::report_fatal_error(llvm::formatv(
        "{0}: no {1} prefetch has handle {2}", call, kind, handle));
  return groups[handle];
}

static RoutedGroup &getRoutedGroup(ThreadedRuntime::State &state,
                                   const char *call, ho_routed_t handle) {
  return getGroup(state.routedGroups, call, "routed", handle);
}

static BlockGroup &getBlockGroup(ThreadedRuntime::State &state,
                                 const char *call, ho_blocks_t handle) {
  return getGroup(state.blockGroups, call, "block", handle);
}

/// An event that has completed: the group's when it started no copy.
static ho_event_t getDoneEvent(ThreadedRuntime::State &state) {
  ho_event_t event = state.newEvent();
  state.eventDone[event] = true;
  return event;
}

/// Starts copying `source` into slot `slot` of `group` on `queue`.
static void fillSlot(ThreadedRuntime::State &state, const char *call,
                     RoutedGroup &group, int64_t slot, int32_t tier,
                     int32_t queue, int64_t expert, ho_remote_t source) {
  TierCopy &copy = state.getCopy(call, source);
  if (copy.tier != tier ||
      static_cast<int64_t>(copy.bytes.size()) != group.slotBytes)
    llvm::report_fatal_error(llvm::formatv(
        "{0}: copy {1} holds {2} bytes in tier {3}, not a {4}-byte expert in "
        "tier {5}",
        call, source, copy.bytes.size(), copy.tier, group.slotBytes, tier));
  if (group.queue >= 0 && group.queue != queue)
    llvm::report_fatal_error(llvm::formatv(
        "{0}: routed group copies on queue {1}, not {2}; a group's copies "
        "share one queue",
        call, group.queue, queue));
  int64_t offset = group.deviceOffset + slot * group.slotBytes;
  int8_t *dest = state.getArenaRange(call, offset, group.slotBytes);
  group.queue = queue;
  group.slotExpert[slot] = expert;
  group.slotSource[slot] = source;
  group.last = state.startFill(
      queue, copy, offset, group.slotBytes,
      [dest, from = copy.bytes.data(), bytes = group.slotBytes] {
        std::memcpy(dest, from, bytes);
      });
}

/// Blocks the caller until every copy `last` follows on its queue has
/// landed, as a kernel's stream waits for the group's event.
static void waitForGroup(ThreadedRuntime::State &state,
                         std::unique_lock<std::mutex> &lock, ho_event_t last) {
  if (last < 0)
    return;
  state.demand(last);
  state.waitFor(lock, last);
}

ho_routed_t ThreadedRuntime::routedBegin(int64_t selectionOffset,
                                         int64_t numPicks, int64_t deviceOffset,
                                         int64_t slotBytes, int64_t slots) {
  std::lock_guard<std::mutex> lock(state->mutex);
  const char *call = "ho_routed_begin";
  state->getArenaRange(call, deviceOffset, slots * slotBytes);
  state->getArenaRange(call, selectionOffset, numPicks * 4);
  RoutedGroup group;
  static_cast<RoutedSlots &>(group) = {selectionOffset, numPicks, deviceOffset,
                                       slotBytes,
                                       std::vector<int64_t>(slots, -1)};
  group.slotSource.assign(slots, -1);
  state->routedGroups.push_back(std::move(group));
  return state->routedGroups.size() - 1;
}

void ThreadedRuntime::routedOffer(ho_routed_t handle, int32_t tier,
                                  int32_t queue, int64_t expertId,
                                  ho_remote_t source) {
  std::lock_guard<std::mutex> lock(state->mutex);
  const char *call = "ho_routed_offer";
  RoutedGroup &group = getRoutedGroup(*state, call, handle);
  std::vector<int32_t> picks =
      state->readPicks(call, group.selectionOffset, group.numPicks);
  auto free = llvm::find(group.slotExpert, -1);
  if (!isPicked(picks, expertId) || free == group.slotExpert.end() ||
      llvm::is_contained(group.slotExpert, expertId))
    return;
  fillSlot(*state, call, group, free - group.slotExpert.begin(), tier, queue,
           expertId, source);
}

ho_event_t ThreadedRuntime::routedEvent(ho_routed_t handle) {
  std::lock_guard<std::mutex> lock(state->mutex);
  RoutedGroup &group = getRoutedGroup(*state, "ho_routed_event", handle);
  return group.last >= 0 ? group.last : getDoneEvent(*state);
}

void ThreadedRuntime::routedEnsure(ho_routed_t handle, int64_t selectionOffset,
                                   int64_t numPicks, int32_t tier,
                                   int32_t queue, int64_t expertId,
                                   ho_remote_t source) {
  std::unique_lock<std::mutex> lock(state->mutex);
  const char *call = "ho_routed_ensure";
  RoutedGroup &group = getRoutedGroup(*state, call, handle);
  std::vector<int32_t> picks =
      state->readPicks(call, selectionOffset, numPicks);
  // The slots are the group's once its copies have landed.
  waitForGroup(*state, lock, group.last);
  std::vector<int64_t> &slots = group.slotExpert;
  if (!isPicked(picks, expertId) || llvm::is_contained(slots, expertId))
    return;
  // A slot nobody picks: empty, or a wrong guess.
  auto spare = llvm::find_if(slots, [&](int64_t expert) {
    return expert < 0 || !isPicked(picks, expert);
  });
  if (spare == slots.end())
    llvm::report_fatal_error(llvm::formatv(
        "{0}: every slot of group {1} holds a picked expert, and expert {2} "
        "is picked too; a plan gives a group a slot per pick",
        call, handle, expertId));
  // A miss is fetched on the group's queue, or on its own if the group
  // fetched nothing.
  if (group.last < 0)
    group.queue = queue;
  fillSlot(*state, call, group, spare - slots.begin(), tier, group.queue,
           expertId, source);
  waitForGroup(*state, lock, group.last);
}

int64_t ThreadedRuntime::routedSlotExpert(ho_routed_t handle, int64_t slot) {
  std::lock_guard<std::mutex> lock(state->mutex);
  RoutedGroup &group = getRoutedGroup(*state, "ho_routed_slot_expert", handle);
  if (slot < 0 || slot >= static_cast<int64_t>(group.slotExpert.size()))
    llvm::report_fatal_error(llvm::formatv(
        "ho_routed_slot_expert: group {0} has no slot {1}", handle, slot));
  return group.slotExpert[slot];
}

void ThreadedRuntime::checkSlotsRead(ho_routed_t handle,
                                     llvm::StringRef where) {
  std::lock_guard<std::mutex> lock(state->mutex);
  RoutedGroup &group = getRoutedGroup(*state, "checkSlotsRead", handle);
  for (auto [slot, expert] : llvm::enumerate(group.slotExpert)) {
    if (expert < 0)
      continue;
    int64_t owner =
        state->getCopy("checkSlotsRead", group.slotSource[slot]).owner;
    state->checkReadLocked(group.deviceOffset + slot * group.slotBytes,
                           group.slotBytes, owner, where);
  }
}

/// The picks at `offset` for `group`, each checked to be a block of a row.
static std::vector<int32_t> readBlockPicks(ThreadedRuntime::State &state,
                                           const char *call, int64_t offset,
                                           const BlockGroup &group) {
  std::vector<int32_t> picks =
      state.readPicks(call, offset, group.rows * group.picksPerRow);
  group.checkPicks(call, picks);
  return picks;
}

/// Starts one copy of the picked blocks of `row` into the consecutive
/// places `places` (indices within the row), and records what they hold.
static void fillPlaces(ThreadedRuntime::State &state, const char *call,
                       BlockGroup &group, int64_t row,
                       llvm::ArrayRef<int32_t> picks,
                       llvm::ArrayRef<int64_t> places) {
  assert(!places.empty() &&
         places.back() - places.front() + 1 ==
             static_cast<int64_t>(places.size()) &&
         "one copy fills consecutive places");
  TierCopy &copy = state.getCopy(call, group.source);
  if ((row + 1) * group.rowBytes > static_cast<int64_t>(copy.bytes.size()))
    llvm::report_fatal_error(llvm::formatv(
        "{0}: copy {1} holds {2} bytes, fewer than {3} rows of {4}", call,
        group.source, copy.bytes.size(), group.rows, group.rowBytes));
  int64_t rowOffset =
      group.deviceOffset + row * group.picksPerRow * group.blockBytes;
  int8_t *dest = state.getArenaRange(call, rowOffset,
                                     group.picksPerRow * group.blockBytes);
  // Each place: where its block starts in the copy, and its bytes (the
  // last block of a row may be short; the rest of its place is zero).
  std::vector<std::pair<int64_t, int64_t>> moves;
  for (int64_t place : places) {
    int32_t block = picks[place];
    int64_t start = block * group.blockBytes;
    moves.push_back(
        {place, std::min(group.blockBytes, group.rowBytes - start)});
    group.placeBlock[row * group.picksPerRow + place] = block;
  }
  const int8_t *from = copy.bytes.data() + row * group.rowBytes;
  int64_t blockBytes = group.blockBytes;
  std::vector<int32_t> blocks(picks.begin(), picks.end());
  auto fill = [dest, from, blockBytes, moves, blocks] {
    for (auto [place, bytes] : moves) {
      int8_t *to = dest + place * blockBytes;
      std::memcpy(to, from + blocks[place] * blockBytes, bytes);
      std::memset(to + bytes, 0, blockBytes - bytes);
    }
  };
  group.last = state.startFill(group.queue, copy,
                               rowOffset + places.front() * blockBytes,
                               places.size() * blockBytes, fill);
}

ho_blocks_t ThreadedRuntime::blocksBegin(int32_t tier, int32_t queue,
                                         ho_remote_t source,
                                         int64_t selectionOffset, int64_t rows,
                                         int64_t picksPerRow, int64_t rowBytes,
                                         int64_t blockBytes,
                                         int64_t deviceOffset) {
  std::lock_guard<std::mutex> lock(state->mutex);
  const char *call = "ho_blocks_begin";
  if (state->getCopy(call, source).tier != tier)
    llvm::report_fatal_error(
        llvm::formatv("{0}: copy {1} is not in tier {2}", call, source, tier));
  if (blockBytes <= 0 || rows < 0 || picksPerRow < 0)
    llvm::report_fatal_error(
        llvm::formatv("{0}: {1} rows of {2} picks of {3}-byte blocks", call,
                      rows, picksPerRow, blockBytes));
  state->getArenaRange(call, deviceOffset, rows * picksPerRow * blockBytes);
  BlockGroup &group = state->blockGroups.emplace_back();
  static_cast<BlockPlaces &>(group) = {
      tier,       queue,        source,
      rows,       picksPerRow,  rowBytes,
      blockBytes, deviceOffset, std::vector<int32_t>(rows * picksPerRow, -1)};
  std::vector<int32_t> picks =
      readBlockPicks(*state, call, selectionOffset, group);
  std::vector<int64_t> every(picksPerRow);
  for (int64_t place = 0; place < picksPerRow; ++place)
    every[place] = place;
  for (int64_t row = 0; row < rows && picksPerRow > 0; ++row)
    fillPlaces(*state, call, group, row,
               llvm::ArrayRef(picks).slice(row * picksPerRow, picksPerRow),
               every);
  return state->blockGroups.size() - 1;
}

ho_event_t ThreadedRuntime::blocksEvent(ho_blocks_t handle) {
  std::lock_guard<std::mutex> lock(state->mutex);
  BlockGroup &group = getBlockGroup(*state, "ho_blocks_event", handle);
  return group.last >= 0 ? group.last : getDoneEvent(*state);
}

void ThreadedRuntime::blocksEnsure(ho_blocks_t handle,
                                   int64_t selectionOffset) {
  std::unique_lock<std::mutex> lock(state->mutex);
  const char *call = "ho_blocks_ensure";
  BlockGroup &group = getBlockGroup(*state, call, handle);
  std::vector<int32_t> picks =
      readBlockPicks(*state, call, selectionOffset, group);
  waitForGroup(*state, lock, group.last);
  int64_t k = group.picksPerRow;
  for (int64_t row = 0; row < group.rows; ++row) {
    // Each pick in its own place: from where the row holds it (a copy on
    // the device), else fetched from the tier.
    int8_t *rowBase = state->getArenaRange(
        call, group.deviceOffset + row * k * group.blockBytes,
        k * group.blockBytes);
    std::vector<int8_t> held(rowBase, rowBase + k * group.blockBytes);
    std::vector<int32_t> heldBlock(group.placeBlock.begin() + row * k,
                                   group.placeBlock.begin() + (row + 1) * k);
    llvm::ArrayRef<int32_t> rowPicks = llvm::ArrayRef(picks).slice(row * k, k);
    for (int64_t place = 0; place < k; ++place) {
      auto at = llvm::find(heldBlock, rowPicks[place]);
      if (at == heldBlock.end()) {
        fillPlaces(*state, call, group, row, rowPicks, {place});
        continue;
      }
      std::memcpy(rowBase + place * group.blockBytes,
                  held.data() + (at - heldBlock.begin()) * group.blockBytes,
                  group.blockBytes);
      group.placeBlock[row * k + place] = rowPicks[place];
    }
  }
  waitForGroup(*state, lock, group.last);
}
