//===- ChromeTraceTest.cpp - Timelines as Perfetto traces -----------------===//

#include "hyperoffload/Simulation/Report.h"

#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
using Kind = TimelineEvent::Kind;

/// The trace of `result` as parsed JSON events.
llvm::json::Array trace(const SimulationResult &result) {
  llvm::json::Value value = timelineToChromeTrace(result);
  return *value.getAsObject()->getArray("traceEvents");
}

size_t count(const llvm::json::Array &events, llvm::StringRef phase) {
  return llvm::count_if(events, [&](const llvm::json::Value &event) {
    return event.getAsObject()->getString("ph") == phase;
  });
}
} // namespace

TEST(ChromeTrace, StallsFlowFromTheTransferTheyWaitFor) {
  // A load of "w" and, later, a wait for it; a wait for nothing copied.
  SimulationResult result;
  result.stepTime = 10;
  result.events = {
      {Kind::Transfer, "pool -> device", "load w", 0, 4, 100},
      {Kind::Compute, "compute", "op", 0, 2},
      {Kind::Stall, "compute", "wait for w", 2, 4},
      {Kind::Stall, "compute", "wait for tail", 9, 10},
  };
  llvm::json::Array events = trace(result);
  ASSERT_EQ(count(events, "s"), 1u);
  ASSERT_EQ(count(events, "f"), 1u);
  for (const llvm::json::Value &value : events) {
    const llvm::json::Object &event = *value.getAsObject();
    if (event.getString("ph") == "s")
      EXPECT_EQ(event.getNumber("ts"), 0); // in the load's slice
    if (event.getString("ph") == "f") {
      EXPECT_EQ(event.getNumber("ts"), 2e6); // in the wait's slice
      EXPECT_EQ(event.getString("bp"), "e");
    }
  }
}

TEST(ChromeTrace, LargeRunsMergeNeighbouringEvents) {
  // Twice the limit of back-to-back block loads: merged into slices that
  // count them, with their bytes, and no more slices than the limit.
  SimulationResult result;
  size_t loads = 2 * kMaxTraceSlices;
  result.stepTime = 1;
  for (size_t i = 0; i < loads; ++i)
    result.events.push_back({Kind::Transfer, "pool -> device", "load block",
                             double(i) / loads, double(i + 1) / loads, 10});
  llvm::json::Array events = trace(result);
  size_t slices = count(events, "X");
  EXPECT_LE(slices, kMaxTraceSlices);
  EXPECT_GT(slices, 0u);
  int64_t bytes = 0, merged = 0;
  for (const llvm::json::Value &value : events) {
    const llvm::json::Object &event = *value.getAsObject();
    if (event.getString("ph") != "X")
      continue;
    const llvm::json::Object &args = *event.getObject("args");
    bytes += *args.getInteger("bytes");
    merged += args.getInteger("events").value_or(1);
  }
  EXPECT_EQ(bytes, int64_t(10 * loads));
  EXPECT_EQ(merged, int64_t(loads));

  // Under the limit, every event is its own slice.
  result.events.resize(100);
  EXPECT_EQ(count(trace(result), "X"), 100u);
}
