//===- Presets.cpp - Built-in hardware targets ----------------------------===//
//
// Each preset is written in the JSON format and read by the same parser as a
// user's file, so the presets double as examples of the format. Where each
// figure comes from is in docs/Hardware.md; keep the two in step.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Target/Target.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::ho;
using llvm::Error;
using llvm::Expected;
namespace json = llvm::json;

namespace {
struct Preset {
  StringRef name;
  StringRef json;
};
} // namespace

static constexpr Preset kPresets[] = {
    {"ascend910c-supernode", R"json({
  "name": "ascend910c-supernode",
  "description": "one Ascend 910C die in a CloudMatrix384 SuperNode: the Unified-Bus memory pool, host DRAM and a local NVMe disk",
  "device": {
    "peak_tflops": {"f32": 94, "bf16": 376, "fp8": 376},
    "hbm_capacity_gib": 64,
    "hbm_bandwidth_gbps": 1600,
    "launch_overhead_us": 5,
    "allocation_granularity_bytes": 512,
    "cache_release_overhead_us": 500,
    "page_map_overhead_us": 20,
    "collective_bandwidth_gbps": 196
  },
  "links": {
    "pool": {"bandwidth_to_device_gbps": 196, "bandwidth_from_device_gbps": 196,
             "latency_us": 1, "queues_per_direction": 2, "issue_overhead_us": 30,
             "hbm_contention": 0.12, "capacity_gib": 1024},
    "host": {"bandwidth_to_device_gbps": 33.6, "bandwidth_from_device_gbps": 33.6,
             "latency_us": 5, "queues_per_direction": 2, "issue_overhead_us": 30,
             "hbm_contention": 0.021, "capacity_gib": 192},
    "disk": {"bandwidth_to_device_gbps": 6, "bandwidth_from_device_gbps": 4,
             "latency_us": 100, "queues_per_direction": 1, "issue_overhead_us": 30,
             "hbm_contention": 0.004, "capacity_gib": 3576}
  }
})json"},
    {"ascend910c-host", R"json({
  "name": "ascend910c-host",
  "description": "one Ascend 910C die offloading to host DRAM at the paper's measured 33.6 GB/s, without a memory pool",
  "device": {
    "peak_tflops": {"f32": 94, "bf16": 376, "fp8": 376},
    "hbm_capacity_gib": 64,
    "hbm_bandwidth_gbps": 1600,
    "launch_overhead_us": 5,
    "allocation_granularity_bytes": 512,
    "cache_release_overhead_us": 500,
    "page_map_overhead_us": 20,
    "collective_bandwidth_gbps": 196
  },
  "links": {
    "host": {"bandwidth_to_device_gbps": 33.6, "bandwidth_from_device_gbps": 33.6,
             "latency_us": 5, "queues_per_direction": 2, "issue_overhead_us": 30,
             "hbm_contention": 0.021, "capacity_gib": 192}
  }
})json"},
    {"h200-pcie5", R"json({
  "name": "h200-pcie5",
  "description": "one NVIDIA H200 SXM offloading to host DRAM over PCIe Gen5 x16, plus a local NVMe disk",
  "device": {
    "peak_tflops": {"f32": 67, "bf16": 989, "fp8": 1979},
    "hbm_capacity_gib": 139,
    "hbm_bandwidth_gbps": 4800,
    "launch_overhead_us": 5,
    "allocation_granularity_bytes": 512,
    "cache_release_overhead_us": 500,
    "page_map_overhead_us": 20,
    "collective_bandwidth_gbps": 450
  },
  "links": {
    "host": {"bandwidth_to_device_gbps": 55, "bandwidth_from_device_gbps": 55,
             "latency_us": 5, "queues_per_direction": 2, "issue_overhead_us": 30,
             "hbm_contention": 0.011, "capacity_gib": 256},
    "disk": {"bandwidth_to_device_gbps": 6, "bandwidth_from_device_gbps": 4,
             "latency_us": 100, "queues_per_direction": 1, "issue_overhead_us": 30,
             "hbm_contention": 0.001, "capacity_gib": 3576}
  }
})json"},
    {"gh200-c2c", R"json({
  "name": "gh200-c2c",
  "description": "an NVIDIA GH200: a Hopper GPU offloading to Grace LPDDR5X over NVLink-C2C, plus a local NVMe disk",
  "device": {
    "peak_tflops": {"f32": 67, "bf16": 989, "fp8": 1979},
    "hbm_capacity_gib": 139,
    "hbm_bandwidth_gbps": 4800,
    "launch_overhead_us": 5,
    "allocation_granularity_bytes": 512,
    "cache_release_overhead_us": 500,
    "page_map_overhead_us": 20,
    "collective_bandwidth_gbps": 450
  },
  "links": {
    "host": {"bandwidth_to_device_gbps": 450, "bandwidth_from_device_gbps": 450,
             "latency_us": 1, "queues_per_direction": 2, "issue_overhead_us": 30,
             "hbm_contention": 0.094, "capacity_gib": 447},
    "disk": {"bandwidth_to_device_gbps": 6, "bandwidth_from_device_gbps": 4,
             "latency_us": 100, "queues_per_direction": 1, "issue_overhead_us": 30,
             "hbm_contention": 0.001, "capacity_gib": 3576}
  }
})json"},
};

namespace {
/// A preset that differs from another in a few fields, written as field
/// overrides of it (docs/Hardware.md says where each figure comes from).
struct PresetVariant {
  StringRef name;
  StringRef base;
  StringRef description;
  StringRef overrides;
};
} // namespace

static constexpr PresetVariant kVariants[] = {
    {"ascend910c-supernode-shared", "ascend910c-supernode",
     "one Ascend 910C die in a CloudMatrix384 SuperNode while every die "
     "streams from the pool at once (an SPMD step): its share of the pool "
     "bandwidth, host DRAM and a local NVMe disk",
     "links.pool.bandwidth_gbps=40,links.pool.hbm_contention=0.025"},
    {"gh200-c2c-measured", "gh200-c2c",
     "an NVIDIA GH200 with NVLink-C2C at measured rather than nominal "
     "bandwidth (faster to the GPU than back), plus a local NVMe disk",
     "links.host.bandwidth_to_device_gbps=375,"
     "links.host.bandwidth_from_device_gbps=170,"
     "links.host.hbm_contention=0.078"},
};

ArrayRef<StringRef> ho::getTargetPresetNames() {
  static const auto names = [] {
    std::array<StringRef, std::size(kPresets) + std::size(kVariants)> result;
    size_t next = 0;
    for (const Preset &preset : kPresets)
      result[next++] = preset.name;
    for (const PresetVariant &variant : kVariants)
      result[next++] = variant.name;
    return result;
  }();
  return names;
}

Expected<Target> ho::getTargetPreset(StringRef name) {
  for (const Preset &preset : kPresets)
    if (preset.name == name)
      return parseTarget(preset.json, ("preset '" + name + "'").str());
  for (const PresetVariant &variant : kVariants) {
    if (variant.name != name)
      continue;
    Expected<Target> target = getTargetPreset(variant.base);
    if (!target)
      return target.takeError();
    if (Error error = applyTargetOverrides(*target, variant.overrides))
      return std::move(error);
    target->name = variant.name.str();
    target->description = variant.description.str();
    return target;
  }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown target preset '" + name +
          "'; valid presets are: " + llvm::join(getTargetPresetNames(), ", "));
}
