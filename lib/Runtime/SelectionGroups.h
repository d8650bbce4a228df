//===- SelectionGroups.h - What a routed or block prefetch holds -*- C++
//-*-===//
//
// The state both runtimes keep of a routed prefetch (its slots and the
// expert each holds) and of a picked-block prefetch (its source's layout
// and the block each place holds), and the check of the picks a block
// prefetch reads.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_RUNTIME_SELECTIONGROUPS_H
#define HYPEROFFLOAD_LIB_RUNTIME_SELECTIONGROUPS_H

#include "hyperoffload/Runtime/HyperOffloadRuntime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <vector>

namespace mlir {
namespace ho {

/// A routed prefetch: where its picks and slots are, and the expert each
/// slot holds (-1: none).
struct RoutedSlots {
  int64_t selectionOffset;
  int64_t numPicks;
  int64_t deviceOffset;
  int64_t slotBytes;
  std::vector<int64_t> slotExpert;
};

/// A prefetch of picked blocks: its source's layout, and the block each
/// place holds (-1: none).
struct BlockPlaces {
  int32_t tier;
  int32_t queue;
  ho_remote_t source;
  int64_t rows;
  int64_t picksPerRow;
  int64_t rowBytes;
  int64_t blockBytes;
  int64_t deviceOffset;
  std::vector<int32_t> placeBlock;

  /// Stops with an error naming `call` if a pick is no block of a row.
  void checkPicks(const char *call, llvm::ArrayRef<int32_t> picks) const {
    int64_t blocks = llvm::divideCeil(rowBytes, blockBytes);
    for (int32_t block : picks)
      if (block < 0 || block >= blocks)
        llvm::report_fatal_error(llvm::formatv(
            "{0}: block {1} is out of range: a row has {2} blocks", call, block,
            blocks));
  }
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_RUNTIME_SELECTIONGROUPS_H
