//===- ThreadedRuntime.cpp - Asynchronous copies on worker threads --------===//

#include "ThreadedRuntimeState.h"

#include <cstring>

using namespace mlir::ho;
using namespace mlir::ho::threaded;

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
  return state->startFill(queue, copy, deviceOffset, bytes,
                          [dest, from = copy.bytes.data(), bytes] {
                            std::memcpy(dest, from, bytes);
                          });
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
  state->checkReadLocked(offset, bytes, owner, where);
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

ho_event_t ThreadedRuntime::State::startFill(int32_t queue,
                                             const TierCopy &source,
                                             int64_t offset, int64_t bytes,
                                             std::function<void()> copy) {
  if (options.checkIntegrity)
    std::memset(arena.data() + offset, kPoison, bytes);
  ho_event_t done = newEvent();
  owners.assign(offset, offset + bytes, source.owner);
  inFlight.push_back({offset, offset + bytes, /*filling=*/true, done});
  std::vector<ho_event_t> after;
  if (source.written >= 0)
    after.push_back(source.written);
  enqueue(queue, {std::move(after), std::move(copy), bytes, done});
  return done;
}

void ThreadedRuntime::State::checkReadLocked(int64_t offset, int64_t bytes,
                                             int64_t owner,
                                             llvm::StringRef where) {
  if (!options.checkIntegrity)
    return;
  getArenaRange("checkRead", offset, bytes);
  pruneInFlight();
  for (const InFlight &transfer : inFlight)
    if (transfer.filling && transfer.begin < offset + bytes &&
        offset < transfer.end)
      report(where, llvm::formatv("reads arena bytes [{0}, {1}) before "
                                  "the prefetch into [{2}, {3}) has "
                                  "landed",
                                  offset, offset + bytes, transfer.begin,
                                  transfer.end));
  owners.visit(offset, offset + bytes,
               [&](int64_t begin, int64_t end, std::optional<int64_t> span) {
                 if (!span)
                   report(where, llvm::formatv("reads arena bytes [{0}, "
                                               "{1}), which nothing wrote",
                                               begin, end));
                 else if (owner != kUnknownOwner && *span != owner)
                   report(where,
                          llvm::formatv("reads arena bytes [{0}, {1}) as "
                                        "buffer {2}, but buffer {3} has "
                                        "overwritten them",
                                        begin, end, owner, *span));
               });
}

std::vector<int32_t> ThreadedRuntime::State::readPicks(const char *call,
                                                       int64_t offset,
                                                       int64_t count) {
  std::vector<int32_t> picks(count);
  std::memcpy(picks.data(), getArenaRange(call, offset, count * 4), count * 4);
  return picks;
}
