//===- ChromeTrace.cpp - A simulated timeline for Perfetto ----------------===//
//
// The trace-event format (Chrome's, which Perfetto opens): complete slices
// ("X") on named tracks, flows ("s"/"f") from a stall to the transfer it
// waited for, and a counter ("C") of device memory.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Simulation/Report.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// One slice of the trace: an event, or neighbouring events of one kind on
/// one track merged into one.
struct Slice {
  const TimelineEvent *first;
  double start, end;
  int64_t bytes = 0;
  int64_t flops = 0;
  unsigned events = 1;
};
} // namespace

/// The slices of `result`, in start order, and for each event the slice
/// that holds it. With more than kMaxTraceSlices events, events of one
/// kind on one track less than a resolution apart merge, the resolution
/// chosen so that each track holds about its share of the limit.
static std::vector<Slice> sliceEvents(const SimulationResult &result,
                                      std::vector<size_t> &sliceOf) {
  std::vector<size_t> order(result.events.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    return result.events[a].start < result.events[b].start;
  });
  double resolution = -1;
  if (result.events.size() > kMaxTraceSlices) {
    llvm::StringMap<bool> tracks;
    for (const TimelineEvent &event : result.events)
      tracks[event.track] = true;
    resolution = result.stepTime * tracks.size() / kMaxTraceSlices;
  }
  std::vector<Slice> slices;
  sliceOf.assign(result.events.size(), 0);
  // The last slice of each kind on each track, which the next event of that
  // kind there may join.
  llvm::StringMap<size_t> open;
  for (size_t index : order) {
    const TimelineEvent &event = result.events[index];
    std::string key =
        (event.track + "/" + llvm::Twine(static_cast<int>(event.kind))).str();
    auto it = open.find(key);
    if (it != open.end() && event.start - slices[it->second].end < resolution) {
      Slice &slice = slices[it->second];
      slice.end = std::max(slice.end, event.end);
      slice.bytes += event.bytes;
      slice.flops += event.flops;
      ++slice.events;
      sliceOf[index] = it->second;
      continue;
    }
    open[key] = slices.size();
    sliceOf[index] = slices.size();
    slices.push_back(
        {&event, event.start, event.end, event.bytes, event.flops, 1});
  }
  return slices;
}

namespace {
/// The transfer events of a run, by the op that issued them and by what
/// they copy (the name after the verb: "load layer 3 / kv_cache" copies
/// "layer 3 / kv_cache").
struct TransferIndex {
  explicit TransferIndex(const SimulationResult &result) {
    for (const TimelineEvent &event : result.events) {
      if (event.kind != TimelineEvent::Kind::Transfer)
        continue;
      if (event.op)
        byOp[event.op].push_back(&event);
      byValue[llvm::StringRef(event.name).split(' ').second].push_back(&event);
    }
  }
  llvm::DenseMap<Operation *, SmallVector<const TimelineEvent *>> byOp;
  llvm::StringMap<SmallVector<const TimelineEvent *>> byValue;
};
} // namespace

/// Of `candidates`, the last to end by `end`; or `best` if that is later.
static const TimelineEvent *
findLastBy(double end, llvm::ArrayRef<const TimelineEvent *> candidates,
           const TimelineEvent *best) {
  for (const TimelineEvent *transfer : candidates)
    if (transfer->end <= end + 1e-12 && (!best || transfer->end > best->end))
      best = transfer;
  return best;
}

/// The transfer event that `stall` waited for: of the transfers issued by
/// the op that waits (a runtime's blocking copy) or by the prefetch or
/// offload it awaits, else of those that copy the value it waits for (the
/// paged runtime loads the next layer's cache ahead), the last to end by
/// the time the stall did. Null when there is none (a tail wait, host
/// overhead).
static const TimelineEvent *findAwaitedTransfer(const TimelineEvent &stall,
                                                const TransferIndex &index) {
  const TimelineEvent *awaited = nullptr;
  if (stall.op) {
    SmallVector<Operation *, 2> issuers = {stall.op};
    if (isa<AwaitOp, WaitOffloadOp>(stall.op))
      for (Value operand : stall.op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          issuers.push_back(def);
    for (Operation *issuer : issuers)
      if (auto it = index.byOp.find(issuer); it != index.byOp.end())
        awaited = findLastBy(stall.end, it->second, awaited);
  }
  llvm::StringRef name = stall.name;
  if (!awaited && name.consume_front("wait for "))
    if (auto it = index.byValue.find(name); it != index.byValue.end())
      awaited = findLastBy(stall.end, it->second, awaited);
  return awaited;
}

void ho::writeChromeTraceEvents(llvm::json::OStream &json,
                                const SimulationResult &result, int64_t pid) {
  // Trace-event times are microseconds. Keys go in sorted order, as a
  // json::Value prints them.
  auto micros = [](double seconds) { return seconds * 1e6; };
  int64_t nextTid = 1;
  auto nameTrack = [&](llvm::StringRef name) {
    int64_t tid = nextTid++;
    json.object([&] {
      json.attributeObject("args", [&] { json.attribute("name", name); });
      json.attribute("name", "thread_name");
      json.attribute("ph", "M");
      json.attribute("pid", pid);
      json.attribute("tid", tid);
    });
    return tid;
  };
  // Slices on one track must not overlap, but a link's queues run side by
  // side: each slice goes to the first track of its kind ("pool -> device",
  // "pool -> device #2", ...) whose last slice has ended, so a link gets as
  // many tracks as it ran transfers at once.
  struct Lane {
    int64_t tid;
    double end;
  };
  llvm::StringMap<SmallVector<Lane, 2>> lanes;
  auto getLane = [&](const Slice &slice) {
    SmallVector<Lane, 2> &trackLanes = lanes[slice.first->track];
    for (Lane &lane : trackLanes)
      if (lane.end <= slice.start) {
        lane.end = slice.end;
        return lane.tid;
      }
    std::string name = trackLanes.empty()
                           ? slice.first->track
                           : llvm::formatv("{0} #{1}", slice.first->track,
                                           trackLanes.size() + 1)
                                 .str();
    trackLanes.push_back({nameTrack(name), slice.end});
    return trackLanes.back().tid;
  };
  // The compute stream is the first track.
  lanes["compute"].push_back({nameTrack("compute"), 0});
  static const char *const categories[] = {"compute", "stall", "allocator",
                                           "transfer", "host"};

  std::vector<size_t> sliceOf;
  std::vector<Slice> slices = sliceEvents(result, sliceOf);
  std::vector<int64_t> tidOf;
  for (const Slice &slice : slices) {
    int64_t tid = getLane(slice);
    tidOf.push_back(tid);
    const TimelineEvent &event = *slice.first;
    const char *category = categories[static_cast<unsigned>(event.kind)];
    bool compute = event.kind == TimelineEvent::Kind::Compute;
    json.object([&] {
      json.attributeObject("args", [&] {
        if (compute && slice.events == 1)
          json.attribute("bound", event.memoryBound ? "memory" : "compute");
        if (slice.bytes > 0)
          json.attribute("bytes", slice.bytes);
        if (slice.events > 1)
          json.attribute("events", slice.events);
        if (compute)
          json.attribute("flops", slice.flops);
        json.attribute("kind", category);
        // The op computed or waiting, or the one that issued the copy: its
        // layer for the model graphs, else its source line.
        if (event.op)
          json.attribute("op", formatOpLocation(event.op));
      });
      json.attribute("cat", category);
      json.attribute("dur", micros(slice.end - slice.start));
      json.attribute("name", slice.events == 1
                                 ? event.name
                                 : llvm::formatv("{0} (and {1} more)",
                                                 event.name, slice.events - 1)
                                       .str());
      json.attribute("ph", "X");
      json.attribute("pid", pid);
      json.attribute("tid", tid);
      json.attribute("ts", micros(slice.start));
    });
  }

  // A flow from each transfer to the stall that waited for it, bound to
  // the two slices; ids are unique across the processes of one file.
  TransferIndex transfers(result);
  int64_t nextFlow = pid << 32;
  for (auto [index, event] : llvm::enumerate(result.events)) {
    if (event.kind != TimelineEvent::Kind::Stall)
      continue;
    const TimelineEvent *transfer = findAwaitedTransfer(event, transfers);
    if (!transfer)
      continue;
    size_t from = sliceOf[transfer - result.events.data()];
    size_t to = sliceOf[index];
    int64_t id = nextFlow++;
    auto writeEnd = [&](const char *phase, size_t slice) {
      json.object([&] {
        if (llvm::StringRef(phase) == "f")
          json.attribute("bp", "e");
        json.attribute("cat", "wait");
        json.attribute("id", id);
        json.attribute("name", "waits for");
        json.attribute("ph", phase);
        json.attribute("pid", pid);
        json.attribute("tid", tidOf[slice]);
        json.attribute("ts", micros(slices[slice].start));
      });
    };
    writeEnd("s", from);
    writeEnd("f", to);
  }

  // Device memory: with more samples than the limit, the highest in each
  // slice of the step.
  double window = result.memory.size() > kMaxTraceSlices
                      ? result.stepTime / kMaxTraceSlices
                      : 0;
  auto writeSample = [&](const MemorySample &sample) {
    json.object([&] {
      json.attributeObject("args", [&] {
        json.attribute("footprint_bytes", sample.footprintBytes);
        json.attribute("live_bytes", sample.liveBytes);
      });
      json.attribute("name", "device memory");
      json.attribute("ph", "C");
      json.attribute("pid", pid);
      json.attribute("ts", micros(sample.time));
    });
  };
  if (window == 0) {
    for (const MemorySample &sample : result.memory)
      writeSample(sample);
    return;
  }
  std::vector<MemorySample> samples = result.memory;
  llvm::stable_sort(samples, [](const MemorySample &a, const MemorySample &b) {
    return a.time < b.time;
  });
  std::optional<MemorySample> highest;
  int64_t bucket = -1;
  for (const MemorySample &sample : samples) {
    int64_t at = static_cast<int64_t>(sample.time / window);
    if (at != bucket && highest) {
      writeSample(*highest);
      highest.reset();
    }
    bucket = at;
    if (!highest || sample.liveBytes > highest->liveBytes)
      highest = sample;
  }
  if (highest)
    writeSample(*highest);
}

llvm::json::Value ho::timelineToChromeTrace(const SimulationResult &result) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("displayTimeUnit", "ms");
    json.attributeArray("traceEvents",
                        [&] { writeChromeTraceEvents(json, result, 1); });
  });
  // The text was written from valid values: it parses.
  return cantFail(llvm::json::parse(text));
}
