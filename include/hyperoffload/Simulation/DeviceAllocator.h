//===- DeviceAllocator.h - Models of device memory allocation ---*- C++ -*-===//
//
// Where buffers go in device memory. A compiled plan places every buffer at a
// fixed offset (StaticAllocator); runtimes use a caching allocator that picks
// a free block at run time and fragments (BestFitAllocator). Both track the
// arena's high-water mark, which is the device memory a run really needs.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H
#define HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <set>

namespace mlir {
namespace ho {

struct AllocationResult {
  enum class Status {
    /// Placed without moving anything.
    Placed,
    /// Placed after compacting live buffers; `movedBytes` were copied.
    PlacedAfterCompaction,
    /// Does not fit in the capacity even after compaction; placed above it so
    /// that the run can go on and report its peak.
    OutOfMemory,
    /// Static plans only: the buffer has no offset, or overlaps the live
    /// buffer `conflict`.
    MissingOffset,
    Overlap,
  };
  Status status = Status::Placed;
  int64_t offset = 0;
  int64_t movedBytes = 0;
  BufferId conflict = 0;

  bool isPlaced() const {
    return status == Status::Placed || status == Status::PlacedAfterCompaction;
  }
};

class DeviceAllocator {
public:
  explicit DeviceAllocator(int64_t capacity) : capacity(capacity) {}
  virtual ~DeviceAllocator();

  virtual AllocationResult allocate(BufferId id, int64_t size) = 0;
  virtual void release(BufferId id) = 0;

  int64_t getCapacity() const { return capacity; }
  /// Bytes of live buffers.
  int64_t getLiveBytes() const { return liveBytes; }
  /// Bytes that are free within the capacity.
  int64_t getFreeBytes() const {
    return std::max<int64_t>(0, capacity - liveBytes);
  }
  /// The largest end offset of any buffer placed so far.
  int64_t getHighWaterMark() const { return highWaterMark; }
  /// The bytes a request of `size` bytes takes.
  virtual int64_t getFootprint(int64_t size) const { return size; }

protected:
  void noteAllocated(int64_t offset, int64_t size);
  void noteReleased(int64_t size) { liveBytes -= size; }

  int64_t capacity;
  int64_t liveBytes = 0;
  int64_t highWaterMark = 0;
};

/// Places each buffer at the offset a plan assigned to it, and checks that
/// no two live buffers overlap and that each fits the capacity.
class StaticAllocator : public DeviceAllocator {
public:
  StaticAllocator(int64_t capacity, llvm::DenseMap<BufferId, int64_t> offsets)
      : DeviceAllocator(capacity), offsets(std::move(offsets)) {}

  AllocationResult allocate(BufferId id, int64_t size) override;
  void release(BufferId id) override;

private:
  llvm::DenseMap<BufferId, int64_t> offsets;
  /// Live buffers by offset: offset -> (end, id).
  std::map<int64_t, std::pair<int64_t, BufferId>> live;
};

/// An allocator without fragmentation: a request fits whenever enough bytes
/// are free, and nothing ever moves.
class IdealAllocator : public DeviceAllocator {
public:
  using DeviceAllocator::DeviceAllocator;

  AllocationResult allocate(BufferId id, int64_t size) override;
  void release(BufferId id) override;

private:
  llvm::DenseMap<BufferId, int64_t> sizeOf;
};

/// vLLM-style paging: memory is a pool of fixed-size blocks and any free
/// block serves any request, so nothing fragments outside a block. A buffer
/// takes whole blocks, and may hold only some of them: a KV cache whose
/// other blocks are in a slower tier.
class BlockAllocator : public DeviceAllocator {
public:
  BlockAllocator(int64_t capacity, int64_t blockBytes);

  /// Gives the buffer every block of `size` bytes.
  AllocationResult allocate(BufferId id, int64_t size) override;
  void release(BufferId id) override;
  int64_t getFootprint(int64_t size) const override {
    return getBlocksFor(size) * blockBytes;
  }

  /// Gives the buffer exactly `blocks` blocks, more or fewer than it has.
  AllocationResult resize(BufferId id, int64_t blocks);
  int64_t getBlocks(BufferId id) const { return blocksOf.lookup(id); }
  int64_t getBlocksFor(int64_t size) const {
    return (size + blockBytes - 1) / blockBytes;
  }
  int64_t getBlockBytes() const { return blockBytes; }
  int64_t getFreeBlocks() const {
    return std::max<int64_t>(0, capacity / blockBytes - liveBytes / blockBytes);
  }

private:
  int64_t blockBytes;
  llvm::DenseMap<BufferId, int64_t> blocksOf;
};

/// A best-fit allocator with block splitting and coalescing of neighbours,
/// which fragments like a runtime's caching allocator. When a request does
/// not fit in any free block although enough bytes are free in total, it
/// compacts: live blocks slide down to the start of the arena, in order.
class BestFitAllocator : public DeviceAllocator {
public:
  explicit BestFitAllocator(int64_t capacity);

  AllocationResult allocate(BufferId id, int64_t size) override;
  void release(BufferId id) override;

  /// Whether `size` bytes fit in one free block right now.
  bool fitsContiguously(int64_t size) const;

private:
  struct Block {
    int64_t size;
    bool free;
    BufferId owner;
  };

  int64_t placeInFreeBlock(int64_t offset, int64_t size, BufferId id);
  int64_t compact();
  void growArena(int64_t size);
  void markFree(int64_t offset);
  void insertFree(int64_t offset, int64_t size);
  void eraseFree(int64_t offset, int64_t size);

  /// Every block of the arena by offset; together they cover it.
  std::map<int64_t, Block> blocks;
  /// Free blocks ordered by (size, offset): the first that fits is the best.
  std::set<std::pair<int64_t, int64_t>> freeBySize;
  llvm::DenseMap<BufferId, int64_t> offsetOf;
  int64_t arenaSize;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H
