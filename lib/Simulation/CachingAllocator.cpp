//===- CachingAllocator.cpp - PyTorch's caching allocator as a model ------===//
//
// The constants and rules are those of c10/cuda/CUDACachingAllocator.cpp
// with its default configuration (no max_split_size, no garbage collection
// threshold); docs/CostModel.md, "Runtime allocators", says what is left out.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Simulation/DeviceAllocator.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir::ho;

namespace {
constexpr int64_t kMinBlockSize = 512;
constexpr int64_t kSmallSize = 1 << 20;
constexpr int64_t kSmallBuffer = 2 << 20;
constexpr int64_t kMinLargeAlloc = 10 << 20;
constexpr int64_t kLargeBuffer = 20 << 20;
constexpr int64_t kRoundLarge = 2 << 20;
/// Expandable segments reserve address space for the whole device; pools
/// sit this far apart so that neither ever reaches the other.
constexpr int64_t kExpandableSpan = int64_t(1) << 50;
} // namespace

CachingAllocator::CachingAllocator(int64_t capacity, Options options)
    : DeviceAllocator(capacity), options(options) {
  assert(options.pageBytes > 0 && "pages must hold bytes");
}

int64_t CachingAllocator::roundSize(int64_t size) {
  return size <= 0 ? 0 : llvm::alignTo(size, kMinBlockSize);
}

CachingAllocator::Pool CachingAllocator::getPool(int64_t roundedSize) {
  return roundedSize <= kSmallSize ? Pool::Small : Pool::Large;
}

int64_t CachingAllocator::getSegmentSize(int64_t roundedSize) {
  if (roundedSize <= kSmallSize)
    return kSmallBuffer;
  if (roundedSize < kMinLargeAlloc)
    return kLargeBuffer;
  return llvm::alignTo(roundedSize, kRoundLarge);
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

void CachingAllocator::insertFree(int64_t address, const Block &block) {
  freeBlocks.insert({segments.at(block.segment).pool, block.size, address});
}

void CachingAllocator::eraseFree(int64_t address, const Block &block) {
  freeBlocks.erase({segments.at(block.segment).pool, block.size, address});
}

const CachingAllocator::Block *
CachingAllocator::findFreeBlock(Pool pool, int64_t size,
                                int64_t &address) const {
  auto fit = freeBlocks.lower_bound({pool, size, INT64_MIN});
  if (fit == freeBlocks.end() || std::get<0>(*fit) != pool)
    return nullptr;
  address = std::get<2>(*fit);
  return &blocks.at(address);
}

int64_t CachingAllocator::placeInBlock(int64_t address, int64_t size,
                                       BufferId id) {
  Block &block = blocks.at(address);
  assert(block.free && block.size >= size && "block must be free and large");
  eraseFree(address, block);
  Segment &segment = segments.at(block.segment);
  // The rest of the block is split off when it is worth keeping: any rest
  // in the small pool, more than 1 MiB in the large one. Otherwise the
  // request takes the whole block.
  int64_t rest = block.size - size;
  bool split =
      segment.pool == Pool::Small ? rest >= kMinBlockSize : rest > kSmallSize;
  if (split) {
    Block restBlock{rest, block.segment, /*free=*/true, 0};
    blocks[address + size] = restBlock;
    insertFree(address + size, restBlock);
    block.size = size;
  }
  block.free = false;
  block.owner = id;
  ++segment.liveBlocks;
  addressOf[id] = address;
  if (options.expandableSegments)
    touchPages(segment.pool, address, block.size, +1);
  liveBytes += block.size;
  noteFootprint(reservedBytes);
  return address;
}

int64_t CachingAllocator::addSegment(Pool pool, int64_t size) {
  int64_t base = nextBase;
  nextBase += options.expandableSegments ? kExpandableSpan : size;
  segments[base] = {pool, base, size};
  // An expandable segment starts empty and grows.
  if (size > 0) {
    Block block{size, base, /*free=*/true, 0};
    blocks[base] = block;
    insertFree(base, block);
  }
  return base;
}

int64_t CachingAllocator::growSegment(Pool pool, int64_t size) {
  unsigned index = static_cast<unsigned>(pool);
  if (poolBase[index] < 0)
    poolBase[index] = addSegment(pool, 0);
  Segment &segment = segments.at(poolBase[index]);
  int64_t end = segment.base + segment.size;
  // Extend the last block when it is free, else append one.
  int64_t address = end;
  if (segment.size > 0) {
    auto last = std::prev(blocks.lower_bound(end));
    if (last->second.free) {
      address = last->first;
      eraseFree(address, last->second);
    }
  }
  int64_t grownEnd = std::max(end, address + size);
  segment.size = grownEnd - segment.base;
  Block block{grownEnd - address, segment.base, /*free=*/true, 0};
  blocks[address] = block;
  insertFree(address, block);
  return address;
}

//===----------------------------------------------------------------------===//
// Pages of expandable segments
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t>
CachingAllocator::getPageRange(Pool pool, int64_t address, int64_t size) const {
  int64_t offset = address - poolBase[static_cast<unsigned>(pool)];
  return {offset / options.pageBytes,
          llvm::divideCeil(offset + size, options.pageBytes)};
}

int64_t CachingAllocator::countPages(Pool pool, int64_t address, int64_t size,
                                     bool unmappedOnly) const {
  unsigned index = static_cast<unsigned>(pool);
  auto [first, last] = getPageRange(pool, address, size);
  int64_t count = 0;
  for (int64_t page = first; page < last; ++page) {
    bool inTable = page < static_cast<int64_t>(mapped[index].size());
    bool counts = unmappedOnly ? !inTable || !mapped[index][page]
                               : !inTable || liveTouches[index][page] == 0;
    count += counts;
  }
  return count;
}

void CachingAllocator::touchPages(Pool pool, int64_t address, int64_t size,
                                  int delta) {
  unsigned index = static_cast<unsigned>(pool);
  auto [first, last] = getPageRange(pool, address, size);
  if (last > static_cast<int64_t>(mapped[index].size())) {
    mapped[index].resize(last, false);
    liveTouches[index].resize(last, 0);
  }
  for (int64_t page = first; page < last; ++page) {
    int32_t &touches = liveTouches[index][page];
    bool wasLive = touches > 0;
    touches += delta;
    livePageCount += (touches > 0) - wasLive;
    if (delta > 0 && !mapped[index][page]) {
      mapped[index][page] = true;
      ++mappedPageCount;
    }
  }
  peakMappedPages = std::max(peakMappedPages, mappedPageCount);
  reservedBytes = mappedPageCount * options.pageBytes;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

CachingAllocator::Placement
CachingAllocator::planExpandable(Pool pool, int64_t size) const {
  Placement placement;
  // More pages than the device has never fit, whatever is released.
  if (llvm::divideCeil(size, options.pageBytes) > getCapacityPages())
    return placement;
  if (findFreeBlock(pool, size, placement.address) == nullptr) {
    // The request goes where the segment grows: into its free last block,
    // or after its end.
    placement.newSegment = true;
    unsigned index = static_cast<unsigned>(pool);
    placement.address = 0;
    if (poolBase[index] >= 0) {
      const Segment &segment = segments.at(poolBase[index]);
      int64_t end = segment.base + segment.size;
      placement.address = end;
      if (segment.size > 0) {
        auto last = std::prev(blocks.lower_bound(end));
        if (last->second.free)
          placement.address = last->first;
      }
    }
  }
  // A segment not made yet starts at page 0 of its own range.
  auto unmapped = [&](bool unmappedOnly) -> int64_t {
    if (poolBase[static_cast<unsigned>(pool)] < 0)
      return llvm::divideCeil(size, options.pageBytes);
    return countPages(pool, placement.address, size, unmappedOnly);
  };
  placement.pagesToMap = unmapped(/*unmappedOnly=*/true);
  if (mappedPageCount + placement.pagesToMap <= getCapacityPages()) {
    placement.fits = true;
    return placement;
  }
  // Releasing the cache unmaps every page no live block touches; then the
  // request maps each of its pages that no live block touches.
  placement.release = true;
  placement.pagesToMap = unmapped(/*unmappedOnly=*/false);
  placement.fits = livePageCount + placement.pagesToMap <= getCapacityPages();
  return placement;
}

CachingAllocator::Placement
CachingAllocator::planPlacement(int64_t size) const {
  Pool pool = getPool(size);
  if (options.expandableSegments)
    return planExpandable(pool, size);
  Placement placement;
  if (findFreeBlock(pool, size, placement.address) != nullptr) {
    placement.fits = true;
    return placement;
  }
  placement.newSegment = true;
  int64_t segmentSize = getSegmentSize(size);
  if (reservedBytes + segmentSize <= capacity) {
    placement.fits = true;
    return placement;
  }
  // cudaMalloc failed: free every cached segment without a live block and
  // try once more.
  int64_t releasable = 0;
  for (const auto &entry : segments)
    if (entry.second.liveBlocks == 0)
      releasable += entry.second.size;
  placement.release = true;
  placement.fits = reservedBytes - releasable + segmentSize <= capacity;
  return placement;
}

bool CachingAllocator::canAllocate(int64_t size) const {
  return size <= 0 || planPlacement(roundSize(size)).fits;
}

int64_t CachingAllocator::releaseCache() {
  int64_t released = 0;
  if (options.expandableSegments) {
    for (unsigned index = 0; index < 2; ++index)
      for (size_t page = 0; page < mapped[index].size(); ++page)
        if (mapped[index][page] && liveTouches[index][page] == 0) {
          mapped[index][page] = false;
          --mappedPageCount;
          released += options.pageBytes;
        }
    reservedBytes = mappedPageCount * options.pageBytes;
    return released;
  }
  for (auto it = segments.begin(); it != segments.end();) {
    if (it->second.liveBlocks > 0) {
      ++it;
      continue;
    }
    // A segment without live blocks is one free block.
    auto block = blocks.find(it->first);
    eraseFree(block->first, block->second);
    blocks.erase(block);
    released += it->second.size;
    reservedBytes -= it->second.size;
    it = segments.erase(it);
  }
  return released;
}

AllocationResult CachingAllocator::allocate(BufferId id, int64_t size) {
  AllocationResult result;
  size = roundSize(size);
  // Empty tensors take no room.
  if (size == 0)
    return result;
  Pool pool = getPool(size);
  // A request larger than the device is out of memory; it is counted but
  // given no pages, which would only take time to map.
  if (options.expandableSegments &&
      llvm::divideCeil(size, options.pageBytes) > getCapacityPages()) {
    oversized[id] = size;
    liveBytes += size;
    noteFootprint(reservedBytes + size);
    result.status = AllocationResult::Status::OutOfMemory;
    return result;
  }
  Placement placement = planPlacement(size);
  if (placement.release) {
    result.status = AllocationResult::Status::PlacedAfterRelease;
    result.releasedCache = true;
    result.releasedBytes = releaseCache();
  }
  if (!placement.fits)
    result.status = AllocationResult::Status::OutOfMemory;

  int64_t address = placement.address;
  if (options.expandableSegments) {
    if (placement.newSegment)
      address = growSegment(pool, size);
    // Pages mapped while fewer are mapped than at the most so far are
    // mapped again, after a release: they cost time.
    int64_t remapped =
        std::min(countPages(pool, address, size, /*unmappedOnly=*/true),
                 std::max<int64_t>(0, peakMappedPages - mappedPageCount));
    if (placement.fits)
      result.remappedPages = remapped;
  } else if (placement.newSegment) {
    int64_t segmentSize = getSegmentSize(size);
    address = addSegment(pool, segmentSize);
    reservedBytes += segmentSize;
  }
  result.offset = placeInBlock(address, size, id);
  return result;
}

void CachingAllocator::release(BufferId id) {
  if (auto large = oversized.find(id); large != oversized.end()) {
    noteReleased(large->second);
    oversized.erase(large);
    return;
  }
  auto found = addressOf.find(id);
  if (found == addressOf.end())
    return;
  int64_t address = found->second;
  addressOf.erase(found);
  auto it = blocks.find(address);
  Segment &segment = segments.at(it->second.segment);
  --segment.liveBlocks;
  noteReleased(it->second.size);
  if (options.expandableSegments)
    touchPages(segment.pool, address, it->second.size, -1);
  it->second.free = true;
  // Merge with the free neighbours of the same segment.
  auto next = std::next(it);
  if (next != blocks.end() && next->second.free &&
      next->second.segment == it->second.segment) {
    eraseFree(next->first, next->second);
    it->second.size += next->second.size;
    blocks.erase(next);
  }
  if (it != blocks.begin()) {
    auto previous = std::prev(it);
    if (previous->second.free &&
        previous->second.segment == it->second.segment) {
      eraseFree(previous->first, previous->second);
      previous->second.size += it->second.size;
      blocks.erase(it);
      it = previous;
    }
  }
  insertFree(it->first, it->second);
}
