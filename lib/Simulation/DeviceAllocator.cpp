//===- DeviceAllocator.cpp - Models of device memory allocation -----------===//

#include "hyperoffload/Simulation/DeviceAllocator.h"

#include <cassert>

using namespace mlir::ho;

DeviceAllocator::~DeviceAllocator() = default;

void DeviceAllocator::noteAllocated(int64_t offset, int64_t size) {
  liveBytes += size;
  highWaterMark = std::max(highWaterMark, offset + size);
}

//===----------------------------------------------------------------------===//
// StaticAllocator
//===----------------------------------------------------------------------===//

AllocationResult StaticAllocator::allocate(BufferId id, int64_t size) {
  AllocationResult result;
  auto it = offsets.find(id);
  if (it == offsets.end()) {
    result.status = AllocationResult::Status::MissingOffset;
    return result;
  }
  int64_t offset = it->second;
  int64_t end = offset + size;
  result.offset = offset;

  // The only candidates for an overlap are the live buffer starting at or
  // before `offset` and the first one starting after it.
  auto next = live.upper_bound(offset);
  if (next != live.begin() && std::prev(next)->second.first > offset) {
    result.status = AllocationResult::Status::Overlap;
    result.conflict = std::prev(next)->second.second;
    return result;
  }
  if (next != live.end() && next->first < end) {
    result.status = AllocationResult::Status::Overlap;
    result.conflict = next->second.second;
    return result;
  }
  // Zero-sized buffers take no room and cannot collide.
  if (size > 0)
    live[offset] = {end, id};
  noteAllocated(offset, size);
  if (end > capacity)
    result.status = AllocationResult::Status::OutOfMemory;
  return result;
}

void StaticAllocator::release(BufferId id) {
  int64_t offset = offsets.lookup(id);
  auto it = live.find(offset);
  if (it == live.end() || it->second.second != id)
    return;
  noteReleased(it->second.first - offset);
  live.erase(it);
}

//===----------------------------------------------------------------------===//
// IdealAllocator
//===----------------------------------------------------------------------===//

AllocationResult IdealAllocator::allocate(BufferId id, int64_t size) {
  AllocationResult result;
  // Buffers are packed as if live ones always sat side by side.
  result.offset = liveBytes;
  sizeOf[id] = size;
  noteAllocated(liveBytes, size);
  if (liveBytes > capacity)
    result.status = AllocationResult::Status::OutOfMemory;
  return result;
}

void IdealAllocator::release(BufferId id) {
  auto it = sizeOf.find(id);
  if (it == sizeOf.end())
    return;
  noteReleased(it->second);
  sizeOf.erase(it);
}

//===----------------------------------------------------------------------===//
// BlockAllocator
//===----------------------------------------------------------------------===//

BlockAllocator::BlockAllocator(int64_t capacity, int64_t blockBytes)
    : DeviceAllocator(capacity), blockBytes(blockBytes) {
  assert(blockBytes > 0 && "blocks must hold bytes");
}

AllocationResult BlockAllocator::allocate(BufferId id, int64_t size) {
  return resize(id, getBlocksFor(size));
}

void BlockAllocator::release(BufferId id) { resize(id, 0); }

AllocationResult BlockAllocator::resize(BufferId id, int64_t blocks) {
  int64_t &held = blocksOf[id];
  int64_t delta = (blocks - held) * blockBytes;
  held = blocks;
  AllocationResult result;
  if (delta < 0) {
    noteReleased(-delta);
    return result;
  }
  // Blocks are interchangeable: the pool is as full as its live blocks.
  noteAllocated(liveBytes, delta);
  if (liveBytes > capacity / blockBytes * blockBytes)
    result.status = AllocationResult::Status::OutOfMemory;
  return result;
}

//===----------------------------------------------------------------------===//
// BestFitAllocator
//===----------------------------------------------------------------------===//

BestFitAllocator::BestFitAllocator(int64_t capacity)
    : DeviceAllocator(capacity), arenaSize(capacity) {
  if (capacity > 0) {
    blocks[0] = {capacity, /*free=*/true, 0};
    insertFree(0, capacity);
  }
}

void BestFitAllocator::insertFree(int64_t offset, int64_t size) {
  freeBySize.insert({size, offset});
}

void BestFitAllocator::eraseFree(int64_t offset, int64_t size) {
  freeBySize.erase({size, offset});
}

bool BestFitAllocator::fitsContiguously(int64_t size) const {
  return freeBySize.lower_bound({size, INT64_MIN}) != freeBySize.end();
}

int64_t BestFitAllocator::placeInFreeBlock(int64_t offset, int64_t size,
                                           BufferId id) {
  Block &block = blocks[offset];
  assert(block.free && block.size >= size && "block must be free and large");
  eraseFree(offset, block.size);
  if (block.size > size) {
    int64_t restOffset = offset + size;
    blocks[restOffset] = {block.size - size, /*free=*/true, 0};
    insertFree(restOffset, block.size - size);
  }
  block = {size, /*free=*/false, id};
  offsetOf[id] = offset;
  noteAllocated(offset, size);
  return offset;
}

int64_t BestFitAllocator::compact() {
  int64_t moved = 0;
  int64_t next = 0;
  std::map<int64_t, Block> packed;
  for (auto &[offset, block] : blocks) {
    if (block.free)
      continue;
    if (offset != next)
      moved += block.size;
    packed[next] = block;
    offsetOf[block.owner] = next;
    next += block.size;
  }
  freeBySize.clear();
  if (next < arenaSize) {
    packed[next] = {arenaSize - next, /*free=*/true, 0};
    insertFree(next, arenaSize - next);
  }
  blocks = std::move(packed);
  return moved;
}

void BestFitAllocator::growArena(int64_t size) {
  // Make the arena end in a free block of at least `size` bytes: extend the
  // last block if it is free, else append one.
  int64_t offset = arenaSize;
  if (!blocks.empty()) {
    auto last = std::prev(blocks.end());
    if (last->second.free) {
      offset = last->first;
      eraseFree(offset, last->second.size);
      blocks.erase(last);
    }
  }
  arenaSize = std::max(arenaSize, offset + size);
  blocks[offset] = {arenaSize - offset, /*free=*/true, 0};
  insertFree(offset, arenaSize - offset);
}

AllocationResult BestFitAllocator::allocate(BufferId id, int64_t size) {
  AllocationResult result;
  // Empty tensors take no room.
  if (size == 0)
    return result;
  auto fit = freeBySize.lower_bound({size, INT64_MIN});
  if (fit == freeBySize.end()) {
    if (arenaSize - liveBytes >= size) {
      result.status = AllocationResult::Status::PlacedAfterCompaction;
      result.movedBytes = compact();
    } else {
      growArena(size);
    }
    fit = freeBySize.lower_bound({size, INT64_MIN});
    assert(fit != freeBySize.end() && "compaction or growth must make room");
  }
  result.offset = placeInFreeBlock(fit->second, size, id);
  if (result.offset + size > capacity)
    result.status = AllocationResult::Status::OutOfMemory;
  return result;
}

void BestFitAllocator::markFree(int64_t offset) {
  auto it = blocks.find(offset);
  it->second.free = true;
  // Coalesce with the next block, then with the previous one.
  auto next = std::next(it);
  if (next != blocks.end() && next->second.free) {
    eraseFree(next->first, next->second.size);
    it->second.size += next->second.size;
    blocks.erase(next);
  }
  if (it != blocks.begin()) {
    auto previous = std::prev(it);
    if (previous->second.free) {
      eraseFree(previous->first, previous->second.size);
      previous->second.size += it->second.size;
      blocks.erase(it);
      it = previous;
    }
  }
  insertFree(it->first, it->second.size);
}

void BestFitAllocator::release(BufferId id) {
  auto it = offsetOf.find(id);
  if (it == offsetOf.end())
    return;
  int64_t offset = it->second;
  offsetOf.erase(it);
  noteReleased(blocks[offset].size);
  markFree(offset);
}
