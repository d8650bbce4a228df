//===- ThreadedRuntimeState.h - The threaded runtime's state -*- C++ -*-===//
//
// What ThreadedRuntime keeps between calls, shared by the files that
// implement it: the arena, tier copies, queues with their worker threads,
// events, and what integrity checking knows of each arena byte.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_RUNTIME_THREADEDRUNTIMESTATE_H
#define HYPEROFFLOAD_LIB_RUNTIME_THREADEDRUNTIMESTATE_H

#include "SelectionGroups.h"

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace mlir {
namespace ho {
namespace threaded {
using Clock = std::chrono::steady_clock;

struct TierCopy {
  int32_t tier;
  std::vector<int8_t> bytes;
  int64_t owner;
  /// The last copy into it; -1 when it was passed in.
  ho_event_t written = -1;
};

/// One copy a queue makes once the events it follows have completed.
struct Job {
  std::vector<ho_event_t> after;
  std::function<void()> copy;
  int64_t bytes;
  ho_event_t done;
  /// When it was issued; enqueue sets it.
  Clock::time_point issued = {};
};

/// Arena bytes a transfer is still reading or filling.
struct InFlight {
  int64_t begin, end;
  bool filling;
  ho_event_t event;
};

/// Which buffer last wrote each arena byte: start -> (end, owner), disjoint.
class OwnerMap {
public:
  void assign(int64_t begin, int64_t end, int64_t owner) {
    cut(begin);
    cut(end);
    spans.erase(spans.lower_bound(begin), spans.lower_bound(end));
    spans[begin] = {end, owner};
  }
  /// Calls `visit(begin, end, owner)` for the spans of [begin, end), and
  /// for the stretches no one wrote with `std::nullopt`.
  template <typename Visit>
  void visit(int64_t begin, int64_t end, Visit &&visit) const {
    int64_t at = begin;
    auto it = spans.upper_bound(begin);
    if (it != spans.begin() && std::prev(it)->second.first > begin)
      --it;
    for (; it != spans.end() && it->first < end; ++it) {
      if (it->first > at)
        visit(at, it->first, std::optional<int64_t>());
      int64_t from = std::max(at, it->first);
      int64_t to = std::min(end, it->second.first);
      visit(from, to, std::optional<int64_t>(it->second.second));
      at = to;
    }
    if (at < end)
      visit(at, end, std::optional<int64_t>());
  }

private:
  /// Splits the span holding `point` there.
  void cut(int64_t point) {
    auto it = spans.upper_bound(point);
    if (it == spans.begin())
      return;
    --it;
    auto [end, owner] = it->second;
    if (it->first < point && point < end) {
      it->second.first = point;
      spans[point] = {end, owner};
    }
  }
  std::map<int64_t, std::pair<int64_t, int64_t>> spans;
};

/// A routed prefetch (ho_routed_*), and the copy each slot was filled
/// from. Its copies run on one queue, and `last` is the last one it
/// started (-1: none): copies on one queue complete in order.
struct RoutedGroup : RoutedSlots {
  std::vector<ho_remote_t> slotSource;
  int32_t queue = -1;
  ho_event_t last = -1;
};

/// A prefetch of picked blocks (ho_blocks_*), and the last copy it started.
struct BlockGroup : BlockPlaces {
  ho_event_t last = -1;
};

/// The host-side cost of issuing one copy on `queue`, spent by the caller.
inline void spendIssueOverhead(const ThreadedRuntime::Options &options,
                               int32_t queue) {
  auto overhead = options.queueIssueOverhead.find(queue);
  if (overhead == options.queueIssueOverhead.end() || overhead->second <= 0)
    return;
  waitUntilNanoseconds(clockNanoseconds() +
                       static_cast<int64_t>(overhead->second * 1e9));
}
} // namespace threaded

struct ThreadedRuntime::State {
  struct Queue {
    std::deque<threaded::Job> jobs;
    std::condition_variable wake;
    QueueStats stats;
    double bandwidth = 0;
    double latency = 0;
    bool busy = false;
    std::thread worker;
  };

  Options options;
  std::vector<int8_t> arena;
  /// Guards everything below; workers hold it only between copies.
  std::mutex mutex;
  std::condition_variable progress;
  std::deque<threaded::TierCopy> copies;
  std::vector<bool> eventDone;
  /// Time callers spent blocked in waits, and how many waits blocked.
  double waitSeconds = 0;
  int64_t waits = 0;
  /// Per event: the queue of its copy.
  std::vector<int32_t> eventQueue;
  /// With copyOnlyWhenWaited, the copies a wait needs.
  std::set<ho_event_t> demanded;
  std::map<int32_t, std::unique_ptr<Queue>> queues;
  bool stopping = false;
  bool held = false;
  std::vector<threaded::RoutedGroup> routedGroups;
  std::vector<threaded::BlockGroup> blockGroups;
  threaded::OwnerMap owners;
  std::vector<threaded::InFlight> inFlight;
  std::vector<std::string> errors;

  ho_event_t newEvent() {
    eventDone.push_back(false);
    eventQueue.push_back(-1);
    return eventDone.size() - 1;
  }

  /// Whether `queue`'s worker may start its next copy.
  bool mayStart(const Queue &queue) const {
    if (queue.jobs.empty() || held)
      return false;
    return !options.copyOnlyWhenWaited ||
           demanded.count(queue.jobs.front().done);
  }

  /// Lets the copy of `event` run, with the copies before it on its queue
  /// and those they follow. Called with the mutex held.
  void demand(ho_event_t event) {
    if (eventDone[event] || eventQueue[event] < 0 ||
        !demanded.insert(event).second)
      return;
    Queue &queue = *queues[eventQueue[event]];
    for (const threaded::Job &job : queue.jobs) {
      demanded.insert(job.done);
      for (ho_event_t before : job.after)
        demand(before);
      if (job.done == event)
        break;
    }
    queue.wake.notify_one();
  }

  int8_t *getArenaRange(const char *call, int64_t offset, int64_t bytes) {
    if (offset < 0 || bytes < 0 ||
        offset + bytes > static_cast<int64_t>(arena.size()))
      llvm::report_fatal_error(
          llvm::formatv("{0}: bytes [{1}, {2}) are outside the {3}-byte arena",
                        call, offset, offset + bytes, arena.size()));
    return arena.data() + offset;
  }

  threaded::TierCopy &getCopy(const char *call, ho_remote_t handle) {
    if (handle < 0 || handle >= static_cast<int64_t>(copies.size()))
      llvm::report_fatal_error(
          llvm::formatv("{0}: no tier copy has handle {1}", call, handle));
    return copies[handle];
  }

  /// Hands `job` to `queue`, starting its worker on first use. Called with
  /// the mutex held.
  void enqueue(int32_t queue, threaded::Job job) {
    std::unique_ptr<Queue> &slot = queues[queue];
    if (!slot) {
      slot = std::make_unique<Queue>();
      auto bandwidth = options.queueBandwidth.find(queue);
      if (bandwidth != options.queueBandwidth.end())
        slot->bandwidth = bandwidth->second;
      auto latency = options.queueLatency.find(queue);
      if (latency != options.queueLatency.end())
        slot->latency = latency->second;
      slot->worker = std::thread([this, q = slot.get()] { work(*q); });
    }
    eventQueue[job.done] = queue;
    job.issued = threaded::Clock::now();
    slot->jobs.push_back(std::move(job));
    slot->wake.notify_one();
  }

  void work(Queue &queue) {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      queue.wake.wait(lock, [&] { return stopping || mayStart(queue); });
      if (!mayStart(queue))
        return;
      queue.busy = true;
      threaded::Job job = std::move(queue.jobs.front());
      queue.jobs.pop_front();
      // A prefetch reads its source only once the offload that makes it,
      // possibly on another queue, has completed.
      auto ready = [&] {
        return llvm::all_of(job.after,
                            [&](ho_event_t event) { return eventDone[event]; });
      };
      // The copy's latency runs from when it could start: its issue, its
      // source's completion, or (copying only when waited) the demand. It
      // overlaps the copies ahead of it, as a link's pipelined requests
      // do; its bytes then follow theirs at the queue's bandwidth.
      threaded::Clock::time_point startable =
          options.copyOnlyWhenWaited ? threaded::Clock::now() : job.issued;
      if (!ready()) {
        progress.wait(lock, ready);
        startable = threaded::Clock::now();
      }
      lock.unlock();
      threaded::Clock::time_point start = threaded::Clock::now();
      job.copy();
      auto duration = [](double seconds) {
        return std::chrono::duration_cast<threaded::Clock::duration>(
            std::chrono::duration<double>(seconds));
      };
      threaded::Clock::time_point end =
          std::max(start, startable + duration(queue.latency));
      if (queue.bandwidth > 0)
        end += duration(job.bytes / queue.bandwidth);
      std::this_thread::sleep_until(end);
      double seconds =
          std::chrono::duration<double>(threaded::Clock::now() - start).count();
      lock.lock();
      ++queue.stats.copies;
      queue.stats.bytes += job.bytes;
      queue.stats.busySeconds += seconds;
      eventDone[job.done] = true;
      queue.busy = false;
      progress.notify_all();
    }
  }

  /// Blocks the caller until `event` is done, counting the time it waited.
  void waitFor(std::unique_lock<std::mutex> &lock, ho_event_t event) {
    if (eventDone[event])
      return;
    auto start = std::chrono::steady_clock::now();
    progress.wait(lock, [&] { return eventDone[event]; });
    waitSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    ++waits;
  }

  /// Drops transfers that have completed from the in-flight list.
  void pruneInFlight() {
    llvm::erase_if(inFlight, [&](const threaded::InFlight &transfer) {
      return eventDone[transfer.event];
    });
  }

  void report(llvm::StringRef where, const std::string &what) {
    errors.push_back((where + ": " + what).str());
  }

  /// Starts `copy`, which fills the arena bytes [offset, offset + bytes)
  /// from `source`, on `queue` once every copy into `source` has
  /// completed; until it lands the bytes are poisoned and in flight, then
  /// they hold `source`'s data. Called with the mutex held.
  ho_event_t startFill(int32_t queue, const threaded::TierCopy &source,
                       int64_t offset, int64_t bytes,
                       std::function<void()> copy);
  /// Checks a read of arena bytes by compute at `where` (checkRead).
  /// Called with the mutex held.
  void checkReadLocked(int64_t offset, int64_t bytes, int64_t owner,
                       llvm::StringRef where);
  /// The `count` int32 ids compute wrote at `offset`.
  std::vector<int32_t> readPicks(const char *call, int64_t offset,
                                 int64_t count);
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_RUNTIME_THREADEDRUNTIMESTATE_H
