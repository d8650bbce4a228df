//===- Target.h - Hardware model of a device and its tiers ------*- C++ -*-===//
//
// The hardware that schedules are planned for and scored on: one accelerator
// with its HBM, and the links from it to each slower memory tier. Targets come
// from built-in presets or JSON files and any field can be overridden, so that
// sweeps can vary one figure at a time.
//
// Units are SI throughout the C++ API (bytes, seconds, bytes per second,
// FLOP per second); the JSON format uses human units named in each field.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TARGET_TARGET_H
#define HYPEROFFLOAD_TARGET_TARGET_H

#include "hyperoffload/Dialect/HO/HOTypes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>

namespace mlir {
namespace ho {

/// The accelerator itself.
struct DeviceModel {
  /// Dense peak throughput in FLOP/s for each element-type class.
  double peakFlopsF32 = 0;
  double peakFlopsBF16 = 0; // also used for f16
  double peakFlopsFP8 = 0;  // also used for int8 and narrower types
  /// HBM capacity in bytes and bandwidth in bytes/s.
  int64_t hbmCapacity = 0;
  double hbmBandwidth = 0;
  /// Fixed cost of launching one kernel, in seconds.
  double launchOverhead = 0;
  /// Every device buffer is rounded up to a multiple of this many bytes.
  int64_t allocationGranularity = 1;
  /// Time compute waits while a runtime allocator gives cached memory back
  /// to the driver and retries a failed request (PyTorch's
  /// release_cached_blocks synchronises the device), in seconds.
  double cacheReleaseOverhead = 0;
  /// Time to map one physical page again into a VMM pool after a release
  /// (expandable segments, MindSpore's VMM defragmentation), in seconds.
  double pageMapOverhead = 0;
  /// Bandwidth of the device-to-device interconnect used by collectives, in
  /// bytes/s.
  double collectiveBandwidth = 0;

  /// The field that holds the peak FLOP/s for arithmetic on `elementType`:
  /// types of 8 bits or fewer (floats and integers) use the fp8 peak, 16-bit
  /// floats the bf16 peak, everything else (f32, f64, tf32, i16, i32, index,
  /// ...) the f32 peak. Shaped and complex types use their element type.
  static double DeviceModel::*getPeakFlopsField(Type elementType);

  /// Returns the peak FLOP/s for arithmetic on `elementType`.
  double getPeakFlops(Type elementType) const {
    return this->*getPeakFlopsField(elementType);
  }
};

/// One direction-aware link between the device and a memory tier.
struct LinkModel {
  /// Bytes/s from the tier to the device (prefetch) and back (offload).
  double bandwidthToDevice = 0;
  double bandwidthFromDevice = 0;
  /// Time from issue until the first byte moves, in seconds.
  double latency = 0;
  /// Transfers that can be in flight at once in each direction; further ones
  /// wait for a free queue.
  unsigned queuesPerDirection = 1;
  /// Host-side time a runtime pays to inspect, issue and synchronise one
  /// transfer, in seconds. Compiled schedules issue from the device stream
  /// and do not pay it.
  double issueOverhead = 0;
  /// Fraction of HBM bandwidth that one active transfer on this link takes
  /// away from compute, in [0, 1).
  double hbmContention = 0;
  /// Capacity of the tier in bytes.
  int64_t capacity = 0;
};

/// A device and the links to the memory tiers it can reach.
struct Target {
  std::string name;
  std::string description;
  DeviceModel device;
  /// Indexed by MemoryTier; std::nullopt when the tier is not reachable.
  std::array<std::optional<LinkModel>, 3> links;

  /// Returns the link to `tier`, or null when the target has none.
  const LinkModel *getLink(MemoryTier tier) const;
  LinkModel *getLink(MemoryTier tier);

  /// The fastest tier to prefetch from: where runtime policies evict to.
  /// It is the reachable tier with the highest bandwidthToDevice, the lower
  /// tier on a tie; std::nullopt when no tier is reachable.
  std::optional<MemoryTier> getDefaultTier() const;

  /// Rounds `bytes` up to the allocation granularity; sizes of zero or less
  /// give 0.
  int64_t roundToGranularity(int64_t bytes) const;
};

/// Names of the built-in presets; the first is the default.
llvm::ArrayRef<llvm::StringRef> getTargetPresetNames();

/// Returns the built-in preset `name`.
llvm::Expected<Target> getTargetPreset(llvm::StringRef name);

/// Parses a target from JSON text. Errors name `sourceName` (a file path or
/// "preset 'x'"), the path of the offending field and what was expected.
llvm::Expected<Target> parseTarget(llvm::StringRef json,
                                   llvm::StringRef sourceName);

/// Loads a preset by name, or a JSON file when `presetOrPath` names one
/// (it ends in ".json" or contains a path separator).
llvm::Expected<Target> loadTarget(llvm::StringRef presetOrPath);

/// Serialises `target` to the JSON format `parseTarget` reads, with every
/// field written. parseTarget(toJSON(t)) gives back t exactly, field for
/// field, for any t read by parseTarget or changed by overrides; a value set
/// directly in C++ may come back one rounding step off when no JSON number
/// converts to it exactly.
llvm::json::Value toJSON(const Target &target);

/// Applies one override "field.path=value", where the path is the JSON path
/// of the field, e.g. "device.hbm_capacity_gib=32" or
/// "links.pool.bandwidth_to_device_gbps=100". "links.<tier>.bandwidth_gbps"
/// sets both directions, "links.bandwidth_gbps" both directions of every
/// link the target has. The result is re-validated like a file; on error,
/// whose message starts with "override '<assignment>':", `target` is left
/// unchanged.
llvm::Error applyTargetOverride(Target &target, llvm::StringRef assignment);

/// Applies a comma-separated list of overrides in order, all or none.
llvm::Error applyTargetOverrides(Target &target, llvm::StringRef assignments);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TARGET_TARGET_H
