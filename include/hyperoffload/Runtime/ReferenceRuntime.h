//===- ReferenceRuntime.h - The runtime on host memory ----------*- C++ -*-===//
//
// A reference implementation of HyperOffloadRuntime.h: the arena and every
// tier are host memory, and each transfer is a copy that completes when it
// is issued. It runs a plan's transfers with their exact data movement, so
// tests can check a lowered plan, and it shows what a real runtime must
// provide. One arena per process.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_RUNTIME_REFERENCERUNTIME_H
#define HYPEROFFLOAD_RUNTIME_REFERENCERUNTIME_H

#include "hyperoffload/Runtime/HyperOffloadRuntime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// Allocates the arena (`ho.arena_size` bytes) and drops every tier copy.
void resetReferenceRuntime(int64_t arenaBytes);

/// Creates a copy in `tier` holding `bytes`, as a caller passes a remote
/// argument; returns its handle.
ho_remote_t createReferenceCopy(int32_t tier, const std::vector<int8_t> &bytes);

/// The bytes of a copy, as a caller reads a remote result.
const std::vector<int8_t> &getReferenceCopy(ho_remote_t copy);

/// The arena's bytes.
int8_t *getReferenceArena();

/// Every call made so far, one line each ("offload tier=1 queue=3 ..."),
/// in order.
const std::vector<std::string> &getReferenceCallLog();

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_RUNTIME_REFERENCERUNTIME_H
