//===- DeviceAllocator.h - Models of device memory allocation ---*- C++ -*-===//
//
// Where buffers go in device memory. A compiled plan places every buffer at a
// fixed offset (StaticAllocator); runtimes use PyTorch's caching allocator,
// which picks a free block at run time, fragments and never moves a live
// tensor (CachingAllocator, optionally with expandable segments, which is
// also how a VMM pool such as MindSpore's behaves). Each tracks its
// high-water mark: the device memory a run really needs.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H
#define HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace mlir {
namespace ho {

struct AllocationResult {
  enum class Status {
    /// Placed from free memory.
    Placed,
    /// Placed once the allocator gave cached memory back to the driver and
    /// retried: `releasedBytes` were released, `remappedPages` mapped anew.
    PlacedAfterRelease,
    /// Does not fit in the capacity even after releasing the cache; placed
    /// above it so that the run can go on and report its peak.
    OutOfMemory,
    /// Static plans only: the buffer has no offset, or overlaps the live
    /// buffer `conflict`.
    MissingOffset,
    Overlap,
  };
  Status status = Status::Placed;
  int64_t offset = 0;
  /// Whether the allocator released its cache before placing (or failing)
  /// the request, which stalls compute.
  bool releasedCache = false;
  int64_t releasedBytes = 0;
  int64_t remappedPages = 0;
  BufferId conflict = 0;

  bool isPlaced() const {
    return status == Status::Placed || status == Status::PlacedAfterRelease;
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
  /// The most device memory the allocator held at once: the largest end
  /// offset of any buffer placed so far, or a caching allocator's reserved
  /// bytes.
  int64_t getHighWaterMark() const { return highWaterMark; }
  /// The bytes a request of `size` bytes takes.
  virtual int64_t getFootprint(int64_t size) const { return size; }
  /// Whether a request of `size` bytes would be placed within the capacity
  /// now, after whatever the allocator itself does when it first fails (a
  /// caching allocator releases its cache and retries).
  virtual bool canAllocate(int64_t size) const {
    return getFreeBytes() >= getFootprint(size);
  }

protected:
  void noteAllocated(int64_t offset, int64_t size);
  void noteReleased(int64_t size) { liveBytes -= size; }
  void noteFootprint(int64_t bytes) {
    highWaterMark = std::max(highWaterMark, bytes);
  }

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

/// PyTorch's CUDA caching allocator with its defaults
/// (c10/cuda/CUDACachingAllocator.cpp). Requests are rounded to 512 bytes;
/// those up to 1 MiB come from a pool of 2 MiB segments, larger ones from a
/// pool of segments of 20 MiB (requests under 10 MiB) or of the request
/// rounded to 2 MiB. A request takes the smallest free block of its pool
/// that fits, split when the rest is worth keeping; a freed block merges
/// with its free neighbours in the same segment and stays cached. When no
/// block fits and a new segment would exceed the capacity, the allocator
/// frees every cached segment that holds no live block and retries; then
/// the request is out of memory. Live blocks never move.
///
/// With expandable segments (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:
/// True`) each pool is one segment of virtual addresses backed by physical
/// pages of `pageBytes`, mapped as the segment grows; on failure the
/// allocator unmaps every page that no live block touches and maps pages
/// where the request goes. Fragmentation then costs only partly used pages
/// and the time to map pages again. A VMM pool (MindSpore's, with
/// `MS_ALLOC_CONF=enable_vmm:True`) defragments the same way, by remapping
/// pages rather than copying tensors.
class CachingAllocator : public DeviceAllocator {
public:
  struct Options {
    bool expandableSegments = false;
    /// The physical page of an expandable segment: CUDA's VMM granularity.
    int64_t pageBytes = 2 * 1024 * 1024;
  };

  CachingAllocator(int64_t capacity, Options options);

  AllocationResult allocate(BufferId id, int64_t size) override;
  void release(BufferId id) override;
  int64_t getFootprint(int64_t size) const override { return roundSize(size); }
  bool canAllocate(int64_t size) const override;

  /// Device memory held in segments or mapped pages, live or cached.
  int64_t getReservedBytes() const { return reservedBytes; }
  /// The 512-byte rounding of every request.
  static int64_t roundSize(int64_t size);

private:
  enum class Pool : uint8_t { Small = 0, Large = 1 };
  struct Block {
    int64_t size;
    int64_t segment;
    bool free;
    BufferId owner;
  };
  struct Segment {
    Pool pool;
    int64_t base;
    int64_t size;
    unsigned liveBlocks = 0;
  };
  /// Where a request goes: an address in a free block, in a new segment,
  /// or in the growth of an expandable one; whether the cache must be
  /// released first; the pages it maps (expandable segments).
  struct Placement {
    bool fits = false;
    bool release = false;
    bool newSegment = false;
    int64_t address = 0;
    int64_t pagesToMap = 0;
  };

  static Pool getPool(int64_t roundedSize);
  static int64_t getSegmentSize(int64_t roundedSize);
  const Block *findFreeBlock(Pool pool, int64_t size, int64_t &address) const;
  Placement planPlacement(int64_t size) const;
  Placement planExpandable(Pool pool, int64_t size) const;
  /// Gives cached memory back: whole free segments, or the pages no live
  /// block touches. Returns the bytes released.
  int64_t releaseCache();

  int64_t placeInBlock(int64_t address, int64_t size, BufferId id);
  int64_t addSegment(Pool pool, int64_t size);
  /// Expandable segments: makes the pool's segment end in a free block of
  /// at least `size` bytes, and returns where that block starts.
  int64_t growSegment(Pool pool, int64_t size);
  void insertFree(int64_t address, const Block &block);
  void eraseFree(int64_t address, const Block &block);

  // Expandable segments: pages by number within the pool's segment.
  std::pair<int64_t, int64_t> getPageRange(Pool pool, int64_t address,
                                           int64_t size) const;
  /// Pages of the range that are not mapped, or that no live block touches.
  int64_t countPages(Pool pool, int64_t address, int64_t size,
                     bool unmappedOnly) const;
  void touchPages(Pool pool, int64_t address, int64_t size, int delta);
  int64_t getCapacityPages() const { return capacity / options.pageBytes; }

  Options options;
  /// Every block of every segment by address.
  std::map<int64_t, Block> blocks;
  /// Free blocks by (pool, size, address): the first that fits is the best.
  std::set<std::tuple<Pool, int64_t, int64_t>> freeBlocks;
  /// By base address.
  std::map<int64_t, Segment> segments;
  llvm::DenseMap<BufferId, int64_t> addressOf;
  /// Expandable segments: requests larger than the device, by size.
  llvm::DenseMap<BufferId, int64_t> oversized;
  int64_t reservedBytes = 0;
  /// Segments get disjoint address ranges; 2^40 bytes apart in expandable
  /// mode, where each may grow.
  int64_t nextBase = 0;
  /// Expandable segments, per pool: its segment's base address, which of
  /// its pages are mapped and how many live blocks touch each; the pages
  /// mapped now and at most so far. Mapping a page past that most is the
  /// first touch of memory that a steady-state step already holds, and is
  /// free; mapping one again after a release costs time.
  std::array<int64_t, 2> poolBase = {-1, -1};
  std::array<std::vector<bool>, 2> mapped;
  std::array<std::vector<int32_t>, 2> liveTouches;
  int64_t mappedPageCount = 0;
  int64_t peakMappedPages = 0;
  /// Pages some live block touches.
  int64_t livePageCount = 0;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_SIMULATION_DEVICEALLOCATOR_H
