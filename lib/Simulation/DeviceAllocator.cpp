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
  // Zero-sized buffers take no room and cannot collide.
  if (size == 0) {
    noteAllocated(offset, size);
    return result;
  }

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
