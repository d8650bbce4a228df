//===- RoundNumbersTarget.h - A target to check numbers by hand -*- C++ -*-===//
//
// 1 TFLOP/s, 1 TB/s of HBM and a 1 GB/s pool link each way without latency:
// 1e9 FLOPs or 1e6 bytes (a tensor<250000xf32>) take 1 ms.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_UNITTESTS_ROUNDNUMBERSTARGET_H
#define HYPEROFFLOAD_UNITTESTS_ROUNDNUMBERSTARGET_H

#include "hyperoffload/Target/Target.h"

namespace mlir {
namespace ho {

inline LinkModel makeRoundNumbersLink(double bandwidth = 1e9) {
  LinkModel link;
  link.bandwidthToDevice = link.bandwidthFromDevice = bandwidth;
  link.capacity = int64_t(1) << 40;
  return link;
}

inline Target makeRoundNumbersTarget() {
  Target target;
  target.name = "round-numbers";
  target.device.peakFlopsF32 = target.device.peakFlopsBF16 =
      target.device.peakFlopsFP8 = 1e12;
  target.device.hbmCapacity = int64_t(1) << 30;
  target.device.hbmBandwidth = 1e12;
  target.device.collectiveBandwidth = 1e9;
  target.links[static_cast<unsigned>(MemoryTier::pool)] =
      makeRoundNumbersLink();
  return target;
}

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_UNITTESTS_ROUNDNUMBERSTARGET_H
