//===- TimelineDigest.cpp - A simulated timeline reduced for plots --------===//

#include "hyperoffload/Compare/TimelineDigest.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// Replays the memory samples of a run in time order, keeping what each
/// tensor has on the device.
class MemoryReplay {
public:
  explicit MemoryReplay(const SimulationResult &result)
      : samples(result.memory) {
    // Transfers land out of issue order, so samples need not be sorted.
    llvm::stable_sort(samples,
                      [](const MemorySample &a, const MemorySample &b) {
                        return a.time < b.time;
                      });
  }

  llvm::ArrayRef<MemorySample> getSamples() const { return samples; }

  /// Applies samples up to and including `index`.
  void replayThrough(size_t index) {
    for (; next <= index && next < samples.size(); ++next) {
      const MemorySample &sample = samples[next];
      if (!sample.buffer)
        continue;
      auto [it, inserted] = resident.try_emplace(
          sample.buffer, Resident{0, static_cast<unsigned>(resident.size())});
      TensorRole role = getRole(sample.buffer);
      roleBytes[static_cast<unsigned>(role)] +=
          sample.bufferBytes - it->second.bytes;
      it->second.bytes = sample.bufferBytes;
    }
  }

  const std::array<int64_t, kTensorRoleCount> &getRoleBytes() const {
    return roleBytes;
  }

  /// The `count` largest tensors on the device now.
  std::vector<LiveTensor> getLargest(unsigned count) {
    if (count == 0)
      return {};
    std::vector<std::pair<Resident, Value>> live;
    for (auto [value, state] : resident)
      if (state.bytes > 0)
        live.push_back({state, value});
    // Ties in the order the tensors first arrived, not in hash order.
    auto larger = [](const auto &a, const auto &b) {
      return std::make_pair(-a.first.bytes, a.first.order) <
             std::make_pair(-b.first.bytes, b.first.order);
    };
    size_t kept = std::min<size_t>(count, live.size());
    std::partial_sort(live.begin(), live.begin() + kept, live.end(), larger);
    std::vector<LiveTensor> largest;
    for (const auto &[state, value] : llvm::ArrayRef(live).take_front(kept))
      largest.push_back({describeTensor(value), getRole(value), state.bytes});
    return largest;
  }

private:
  TensorRole getRole(Value value) {
    auto [it, inserted] = roles.try_emplace(value, TensorRole::Other);
    if (inserted)
      it->second = classifyTensor(value);
    return it->second;
  }

  /// A tensor's bytes on the device, and when it first arrived.
  struct Resident {
    int64_t bytes;
    unsigned order;
  };

  std::vector<MemorySample> samples;
  size_t next = 0;
  llvm::DenseMap<Value, Resident> resident;
  llvm::DenseMap<Value, TensorRole> roles;
  std::array<int64_t, kTensorRoleCount> roleBytes = {};
};
} // namespace

std::vector<MemoryBucket> ho::bucketMemory(const SimulationResult &result,
                                           unsigned buckets, unsigned largest) {
  if (result.memory.empty() || buckets == 0)
    return {};
  MemoryReplay replay(result);
  llvm::ArrayRef<MemorySample> samples = replay.getSamples();
  double end = std::max(result.stepTime, samples.back().time);
  double width = end > 0 ? end / buckets : 1;

  std::vector<MemoryBucket> curve;
  curve.reserve(buckets);
  MemorySample carried = {0, 0, 0, Value(), 0};
  size_t next = 0;
  for (unsigned i = 0; i < buckets; ++i) {
    double start = i * width;
    double stop = i + 1 == buckets ? end : start + width;
    MemoryBucket bucket = {
        start, carried.liveBytes, carried.footprintBytes, {}, {}};
    // The sample of the highest live bytes: the last one carried in unless
    // one in the bucket is higher.
    std::optional<size_t> highest;
    if (next > 0)
      highest = next - 1;
    // The last bucket is closed, so that a sample at the very end counts.
    while (next < samples.size() &&
           (samples[next].time < stop ||
            (i + 1 == buckets && samples[next].time <= stop))) {
      carried = samples[next];
      if (carried.liveBytes > bucket.liveBytes || !highest)
        highest = next;
      bucket.liveBytes = std::max(bucket.liveBytes, carried.liveBytes);
      bucket.footprintBytes =
          std::max(bucket.footprintBytes, carried.footprintBytes);
      ++next;
    }
    if (highest) {
      replay.replayThrough(*highest);
      bucket.roleBytes = replay.getRoleBytes();
      bucket.largest = replay.getLargest(largest);
    }
    curve.push_back(std::move(bucket));
  }
  return curve;
}

MemoryPeak ho::findMemoryPeak(const SimulationResult &result, unsigned count) {
  MemoryReplay replay(result);
  llvm::ArrayRef<MemorySample> samples = replay.getSamples();
  MemoryPeak peak;
  if (samples.empty())
    return peak;
  size_t highest = 0;
  for (auto [i, sample] : llvm::enumerate(samples))
    if (sample.liveBytes > samples[highest].liveBytes)
      highest = i;
  replay.replayThrough(highest);
  peak.time = samples[highest].time;
  peak.liveBytes = samples[highest].liveBytes;
  peak.roleBytes = replay.getRoleBytes();
  peak.largest = replay.getLargest(count);
  return peak;
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

namespace {
/// The events of one track, merged into stretches as they are added in
/// time order.
struct StretchBuilder {
  double start, end;
  const TimelineEvent *first, *last;
  unsigned events;
};
} // namespace

static std::string describeStretch(const StretchBuilder &stretch) {
  if (stretch.events == 1)
    return stretch.first->name;
  return llvm::formatv("{0} events, {1} ... {2}", stretch.events,
                       stretch.first->name, stretch.last->name)
      .str();
}

std::vector<TrackDigest> ho::digestTracks(const SimulationResult &result,
                                          double resolution) {
  std::vector<TrackDigest> tracks;
  std::vector<std::vector<const TimelineEvent *>> trackEvents;
  llvm::StringMap<size_t> indexOf;
  for (const TimelineEvent &event : result.events) {
    std::string name = getTrackName(event);
    auto [it, inserted] = indexOf.try_emplace(name, tracks.size());
    if (inserted) {
      tracks.push_back({classify(event), name, {}, {}, 0, 0, 0});
      trackEvents.emplace_back();
    }
    TrackDigest &track = tracks[it->second];
    trackEvents[it->second].push_back(&event);
    ++track.events;
    track.busySeconds += event.end - event.start;
    track.bytes += event.bytes;
  }
  // Merge the events of each track that are less than `resolution` apart.
  for (auto [track, events] : llvm::zip(tracks, trackEvents)) {
    llvm::stable_sort(events,
                      [](const TimelineEvent *a, const TimelineEvent *b) {
                        return std::make_pair(a->start, a->end) <
                               std::make_pair(b->start, b->end);
                      });
    std::vector<StretchBuilder> merged;
    for (const TimelineEvent *event : events) {
      if (!merged.empty() && event->start - merged.back().end < resolution) {
        StretchBuilder &stretch = merged.back();
        stretch.end = std::max(stretch.end, event->end);
        stretch.last = event;
        ++stretch.events;
      } else {
        merged.push_back({event->start, event->end, event, event, 1});
      }
    }
    for (const StretchBuilder &stretch : merged) {
      track.stretches.push_back({stretch.start, stretch.end});
      track.labels.push_back(describeStretch(stretch));
    }
  }
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

/// The first `separator`-separated component of `name` that holds a digit;
/// empty if none does.
static llvm::StringRef findNumberedComponent(llvm::StringRef name,
                                             llvm::StringRef separator) {
  for (llvm::StringRef rest = name; !rest.empty();) {
    auto [component, tail] = rest.split(separator);
    if (llvm::any_of(component, [](char c) { return llvm::isDigit(c); }))
      return component;
    rest = tail;
  }
  return {};
}

llvm::StringRef ho::getGraphPartName(llvm::StringRef name) {
  llvm::StringRef component = findNumberedComponent(name, " / ");
  if (component.empty())
    return {};
  llvm::StringRef module = findNumberedComponent(component, ".");
  return name.take_front(module.end() - name.begin());
}

std::vector<GraphPart> ho::findGraphParts(const SimulationResult &result,
                                          size_t &opCount) {
  std::vector<const TimelineEvent *> computed;
  for (const TimelineEvent &event : result.events)
    if (event.kind == TimelineEvent::Kind::Compute)
      computed.push_back(&event);
  llvm::stable_sort(computed,
                    [](const TimelineEvent *a, const TimelineEvent *b) {
                      return a->start < b->start;
                    });
  opCount = computed.size();
  std::vector<GraphPart> parts;
  for (auto [index, event] : llvm::enumerate(computed)) {
    llvm::StringRef part = getGraphPartName(event->name);
    if (part.empty())
      continue;
    if (parts.empty() || parts.back().name != part)
      parts.push_back({part.str(), index});
  }
  return parts;
}
