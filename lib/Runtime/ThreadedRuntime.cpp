//===- ThreadedRuntime.cpp - Asynchronous copies on worker threads --------===//

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

using namespace mlir::ho;
using Clock = std::chrono::steady_clock;

namespace {
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
} // namespace

int64_t mlir::ho::clockNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

void mlir::ho::waitUntilNanoseconds(int64_t end) {
  constexpr int64_t kSpinNanoseconds = 100000;
  int64_t left = end - clockNanoseconds();
  if (left > kSpinNanoseconds)
    std::this_thread::sleep_for(
        std::chrono::nanoseconds(left - kSpinNanoseconds));
  while (clockNanoseconds() < end) {
  }
}

namespace {
/// The host-side cost of issuing one copy on `queue`, spent by the caller.
void spendIssueOverhead(const ThreadedRuntime::Options &options,
                        int32_t queue) {
  auto overhead = options.queueIssueOverhead.find(queue);
  if (overhead == options.queueIssueOverhead.end() || overhead->second <= 0)
    return;
  waitUntilNanoseconds(clockNanoseconds() +
                       static_cast<int64_t>(overhead->second * 1e9));
}
} // namespace

struct ThreadedRuntime::State {
  struct Queue {
    std::deque<Job> jobs;
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
  std::deque<TierCopy> copies;
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
  OwnerMap owners;
  std::vector<InFlight> inFlight;
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
    for (const Job &job : queue.jobs) {
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

  TierCopy &getCopy(const char *call, ho_remote_t handle) {
    if (handle < 0 || handle >= static_cast<int64_t>(copies.size()))
      llvm::report_fatal_error(
          llvm::formatv("{0}: no tier copy has handle {1}", call, handle));
    return copies[handle];
  }

  /// Hands `job` to `queue`, starting its worker on first use. Called with
  /// the mutex held.
  void enqueue(int32_t queue, Job job) {
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
    job.issued = Clock::now();
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
      Job job = std::move(queue.jobs.front());
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
      Clock::time_point startable =
          options.copyOnlyWhenWaited ? Clock::now() : job.issued;
      if (!ready()) {
        progress.wait(lock, ready);
        startable = Clock::now();
      }
      lock.unlock();
      Clock::time_point start = Clock::now();
      job.copy();
      auto duration = [](double seconds) {
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(seconds));
      };
      Clock::time_point end =
          std::max(start, startable + duration(queue.latency));
      if (queue.bandwidth > 0)
        end += duration(job.bytes / queue.bandwidth);
      std::this_thread::sleep_until(end);
      double seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
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
    llvm::erase_if(inFlight, [&](const InFlight &transfer) {
      return eventDone[transfer.event];
    });
  }

  void report(llvm::StringRef where, const std::string &what) {
    errors.push_back((where + ": " + what).str());
  }
};

ThreadedRuntime::ThreadedRuntime(Options options)
    : state(std::make_unique<State>()) {
  state->arena.assign(options.arenaBytes, 0);
  state->options = std::move(options);
}

ThreadedRuntime::~ThreadedRuntime() {
  holdQueues(false);
  synchronize();
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->stopping = true;
    for (auto &[id, queue] : state->queues)
      queue->wake.notify_one();
  }
  for (auto &[id, queue] : state->queues)
    queue->worker.join();
}

int8_t *ThreadedRuntime::getArena() { return state->arena.data(); }

int64_t ThreadedRuntime::getArenaSize() const { return state->arena.size(); }

ho_remote_t ThreadedRuntime::createCopy(int32_t tier,
                                        llvm::ArrayRef<int8_t> bytes,
                                        int64_t owner) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->copies.push_back(
      {tier, std::vector<int8_t>(bytes.begin(), bytes.end()), owner});
  return state->copies.size() - 1;
}

std::vector<int8_t> ThreadedRuntime::readCopy(ho_remote_t copy) {
  offloadWait(copy);
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->getCopy("readCopy", copy).bytes;
}

int64_t ThreadedRuntime::getCopyOwner(ho_remote_t copy) {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->getCopy("getCopyOwner", copy).owner;
}

ho_remote_t ThreadedRuntime::offloadStart(int32_t tier, int32_t queue,
                                          int64_t deviceOffset, int64_t bytes) {
  spendIssueOverhead(state->options, queue);
  std::lock_guard<std::mutex> lock(state->mutex);
  const int8_t *source =
      state->getArenaRange("ho_offload_start", deviceOffset, bytes);
  // The copy holds what the bytes hold: one buffer's data, or unknown.
  int64_t owner = kUnknownOwner;
  bool first = true;
  state->owners.visit(deviceOffset, deviceOffset + bytes,
                      [&](int64_t, int64_t, std::optional<int64_t> span) {
                        int64_t spanOwner = span.value_or(kUnknownOwner);
                        owner = first || owner == spanOwner ? spanOwner
                                                            : kUnknownOwner;
                        first = false;
                      });
  state->copies.push_back({tier, std::vector<int8_t>(bytes), owner});
  ho_remote_t handle = state->copies.size() - 1;
  ho_event_t done = state->newEvent();
  state->copies[handle].written = done;
  int8_t *dest = state->copies[handle].bytes.data();
  state->inFlight.push_back(
      {deviceOffset, deviceOffset + bytes, /*filling=*/false, done});
  state->enqueue(queue,
                 {{}, [=] { std::memcpy(dest, source, bytes); }, bytes, done});
  return handle;
}

void ThreadedRuntime::offloadWait(ho_remote_t copy) {
  std::unique_lock<std::mutex> lock(state->mutex);
  ho_event_t written = state->getCopy("ho_offload_wait", copy).written;
  if (written < 0)
    return;
  state->demand(written);
  state->waitFor(lock, written);
}

ho_event_t ThreadedRuntime::prefetchStart(int32_t tier, int32_t queue,
                                          ho_remote_t source,
                                          int64_t deviceOffset, int64_t bytes) {
  spendIssueOverhead(state->options, queue);
  std::lock_guard<std::mutex> lock(state->mutex);
  int8_t *dest = state->getArenaRange("ho_prefetch_start", deviceOffset, bytes);
  TierCopy &copy = state->getCopy("ho_prefetch_start", source);
  if (bytes > static_cast<int64_t>(copy.bytes.size()))
    llvm::report_fatal_error(
        llvm::formatv("ho_prefetch_start: {0} bytes asked of a {1}-byte copy",
                      bytes, copy.bytes.size()));
  if (state->options.checkIntegrity)
    std::memset(dest, kPoison, bytes);
  ho_event_t done = state->newEvent();
  state->owners.assign(deviceOffset, deviceOffset + bytes, copy.owner);
  state->inFlight.push_back(
      {deviceOffset, deviceOffset + bytes, /*filling=*/true, done});
  std::vector<ho_event_t> after;
  if (copy.written >= 0)
    after.push_back(copy.written);
  const int8_t *from = copy.bytes.data();
  state->enqueue(queue, {std::move(after),
                         [=] { std::memcpy(dest, from, bytes); }, bytes, done});
  return done;
}

void ThreadedRuntime::eventWait(ho_event_t event) {
  std::unique_lock<std::mutex> lock(state->mutex);
  if (event < 0 || event >= static_cast<int64_t>(state->eventDone.size()))
    llvm::report_fatal_error(
        llvm::formatv("ho_event_wait: no event {0}", event));
  state->demand(event);
  state->waitFor(lock, event);
}

ho_remote_t ThreadedRuntime::offloadSliceStart(
    int32_t tier, int32_t queue, ho_remote_t dest, int64_t deviceOffset,
    int64_t runBytes, int64_t runs, int64_t destOffset, int64_t destStride) {
  spendIssueOverhead(state->options, queue);
  std::lock_guard<std::mutex> lock(state->mutex);
  int64_t bytes = runBytes * runs;
  const int8_t *source =
      state->getArenaRange("ho_offload_slice_start", deviceOffset, bytes);
  TierCopy &copy = state->getCopy("ho_offload_slice_start", dest);
  int64_t lastEnd = destOffset + (runs - 1) * destStride + runBytes;
  if (runs > 0 && (destOffset < 0 || destStride < 0 ||
                   lastEnd > static_cast<int64_t>(copy.bytes.size())))
    llvm::report_fatal_error(llvm::formatv(
        "ho_offload_slice_start: bytes up to {0} are outside the {1}-byte copy",
        lastEnd, copy.bytes.size()));
  ho_event_t done = state->newEvent();
  std::vector<ho_event_t> after;
  if (copy.written >= 0)
    after.push_back(copy.written);
  copy.written = done;
  int8_t *to = copy.bytes.data();
  state->inFlight.push_back(
      {deviceOffset, deviceOffset + bytes, /*filling=*/false, done});
  state->enqueue(queue, {std::move(after),
                         [=] {
                           for (int64_t run = 0; run < runs; ++run)
                             std::memcpy(to + destOffset + run * destStride,
                                         source + run * runBytes, runBytes);
                         },
                         bytes, done});
  return dest;
}

void ThreadedRuntime::checkRead(int64_t offset, int64_t bytes, int64_t owner,
                                llvm::StringRef where) {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->options.checkIntegrity)
    return;
  state->getArenaRange("checkRead", offset, bytes);
  state->pruneInFlight();
  for (const InFlight &transfer : state->inFlight)
    if (transfer.filling && transfer.begin < offset + bytes &&
        offset < transfer.end)
      state->report(where, llvm::formatv("reads arena bytes [{0}, {1}) before "
                                         "the prefetch into [{2}, {3}) has "
                                         "landed",
                                         offset, offset + bytes, transfer.begin,
                                         transfer.end));
  state->owners.visit(
      offset, offset + bytes,
      [&](int64_t begin, int64_t end, std::optional<int64_t> span) {
        if (!span)
          state->report(where, llvm::formatv("reads arena bytes [{0}, "
                                             "{1}), which nothing wrote",
                                             begin, end));
        else if (owner != kUnknownOwner && *span != owner)
          state->report(where, llvm::formatv("reads arena bytes [{0}, {1}) as "
                                             "buffer {2}, but buffer {3} has "
                                             "overwritten them",
                                             begin, end, owner, *span));
      });
}

void ThreadedRuntime::recordWrite(int64_t offset, int64_t bytes, int64_t owner,
                                  llvm::StringRef where) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->getArenaRange("recordWrite", offset, bytes);
  if (state->options.checkIntegrity) {
    state->pruneInFlight();
    for (const InFlight &transfer : state->inFlight)
      if (transfer.begin < offset + bytes && offset < transfer.end)
        state->report(where,
                      llvm::formatv("writes arena bytes [{0}, {1}) while {2} "
                                    "[{3}, {4}) has not completed",
                                    offset, offset + bytes,
                                    transfer.filling ? "the prefetch into"
                                                     : "the offload of",
                                    transfer.begin, transfer.end));
  }
  state->owners.assign(offset, offset + bytes, owner);
}

void ThreadedRuntime::recordInput(int64_t offset, int64_t bytes,
                                  int64_t owner) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->getArenaRange("recordInput", offset, bytes);
  state->owners.assign(offset, offset + bytes, owner);
}

std::vector<std::string> ThreadedRuntime::getIntegrityErrors() {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->errors;
}

void ThreadedRuntime::holdQueues(bool hold) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->held = hold;
  for (auto &[id, queue] : state->queues)
    queue->wake.notify_one();
}

void ThreadedRuntime::synchronize() {
  std::unique_lock<std::mutex> lock(state->mutex);
  for (auto &[id, queue] : state->queues)
    if (!queue->jobs.empty())
      state->demand(queue->jobs.back().done);
  auto idle = [&] {
    return llvm::all_of(state->queues, [](const auto &entry) {
      return entry.second->jobs.empty() && !entry.second->busy;
    });
  };
  if (idle())
    return;
  // A step ends when its last copy lands (a result stored to a tier): the
  // time the caller waits for that is a stall, as the simulator counts it.
  auto start = std::chrono::steady_clock::now();
  state->progress.wait(lock, idle);
  state->waitSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ++state->waits;
}

ThreadedRuntime::WaitStats ThreadedRuntime::getWaitStats() {
  std::lock_guard<std::mutex> lock(state->mutex);
  return {state->waits, state->waitSeconds};
}

std::map<int32_t, ThreadedRuntime::QueueStats>
ThreadedRuntime::getQueueStats() {
  synchronize();
  std::lock_guard<std::mutex> lock(state->mutex);
  std::map<int32_t, QueueStats> stats;
  for (const auto &[id, queue] : state->queues)
    stats[id] = queue->stats;
  return stats;
}
