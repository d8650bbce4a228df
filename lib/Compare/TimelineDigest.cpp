//===- TimelineDigest.cpp - A simulated timeline reduced for plots --------===//

#include "hyperoffload/Compare/TimelineDigest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;

std::vector<MemoryBucket> ho::bucketMemory(const SimulationResult &result,
                                           unsigned buckets) {
  if (result.memory.empty() || buckets == 0)
    return {};
  // Transfers land out of issue order, so samples need not be sorted.
  std::vector<MemorySample> samples = result.memory;
  llvm::stable_sort(samples, [](const MemorySample &a, const MemorySample &b) {
    return a.time < b.time;
  });
  double end = std::max(result.stepTime, samples.back().time);
  double width = end > 0 ? end / buckets : 1;

  std::vector<MemoryBucket> curve;
  curve.reserve(buckets);
  MemorySample carried = {0, 0, 0};
  size_t next = 0;
  for (unsigned i = 0; i < buckets; ++i) {
    double start = i * width;
    double stop = i + 1 == buckets ? end : start + width;
    MemoryBucket bucket = {start, carried.liveBytes, carried.footprintBytes};
    // The last bucket is closed, so that a sample at the very end counts.
    while (next < samples.size() &&
           (samples[next].time < stop ||
            (i + 1 == buckets && samples[next].time <= stop))) {
      carried = samples[next++];
      bucket.liveBytes = std::max(bucket.liveBytes, carried.liveBytes);
      bucket.footprintBytes =
          std::max(bucket.footprintBytes, carried.footprintBytes);
    }
    curve.push_back(bucket);
  }
  return curve;
}

static TrackDigest::Kind classify(const TimelineEvent &event) {
  switch (event.kind) {
  case TimelineEvent::Kind::Compute:
    return TrackDigest::Kind::Compute;
  case TimelineEvent::Kind::Stall:
  case TimelineEvent::Kind::HostOverhead:
    return TrackDigest::Kind::Stall;
  case TimelineEvent::Kind::AllocatorStall:
    return TrackDigest::Kind::AllocatorStall;
  case TimelineEvent::Kind::Transfer:
    return TrackDigest::Kind::Link;
  }
  llvm_unreachable("unknown event kind");
}

static std::string getTrackName(const TimelineEvent &event) {
  switch (classify(event)) {
  case TrackDigest::Kind::Compute:
    return "compute";
  case TrackDigest::Kind::Stall:
    return "stalls";
  case TrackDigest::Kind::AllocatorStall:
    return "allocator";
  case TrackDigest::Kind::Link:
    return event.track;
  }
  llvm_unreachable("unknown track kind");
}

/// Sorts `stretches` and merges those less than `resolution` apart.
static void mergeStretches(std::vector<std::pair<double, double>> &stretches,
                           double resolution) {
  llvm::sort(stretches);
  std::vector<std::pair<double, double>> merged;
  for (const auto &[start, end] : stretches) {
    if (!merged.empty() && start - merged.back().second < resolution)
      merged.back().second = std::max(merged.back().second, end);
    else
      merged.push_back({start, end});
  }
  stretches = std::move(merged);
}

std::vector<TrackDigest> ho::digestTracks(const SimulationResult &result,
                                          double resolution) {
  std::vector<TrackDigest> tracks;
  llvm::StringMap<size_t> indexOf;
  for (const TimelineEvent &event : result.events) {
    std::string name = getTrackName(event);
    auto [it, inserted] = indexOf.try_emplace(name, tracks.size());
    if (inserted)
      tracks.push_back({classify(event), name, {}, 0, 0, 0});
    TrackDigest &track = tracks[it->second];
    track.stretches.push_back({event.start, event.end});
    ++track.events;
    track.busySeconds += event.end - event.start;
    track.bytes += event.bytes;
  }
  for (TrackDigest &track : tracks)
    mergeStretches(track.stretches, resolution);
  llvm::stable_sort(tracks, [](const TrackDigest &a, const TrackDigest &b) {
    return std::make_pair(a.kind, llvm::StringRef(a.name)) <
           std::make_pair(b.kind, llvm::StringRef(b.name));
  });
  return tracks;
}

std::vector<StallBin> ho::binStallsByProgress(const SimulationResult &result,
                                              unsigned bins) {
  std::vector<StallBin> binned(bins);
  if (bins == 0)
    return binned;
  std::vector<double> computeStarts;
  for (const TimelineEvent &event : result.events)
    if (event.kind == TimelineEvent::Kind::Compute)
      computeStarts.push_back(event.start);
  llvm::sort(computeStarts);

  for (const TimelineEvent &event : result.events) {
    TrackDigest::Kind kind = classify(event);
    if (kind != TrackDigest::Kind::Stall &&
        kind != TrackDigest::Kind::AllocatorStall)
      continue;
    // The op the wait delays: the first that starts once it began.
    size_t delayed =
        llvm::lower_bound(computeStarts, event.start) - computeStarts.begin();
    size_t bin =
        computeStarts.empty()
            ? 0
            : std::min<size_t>(bins - 1, delayed * bins / computeStarts.size());
    double seconds = event.end - event.start;
    if (kind == TrackDigest::Kind::AllocatorStall)
      binned[bin].allocatorSeconds += seconds;
    else
      binned[bin].transferSeconds += seconds;
  }
  return binned;
}
