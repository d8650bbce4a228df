//===- TargetTest.cpp - Tests of the hardware model -----------------------===//

#include "hyperoffload/Target/Target.h"
#include "hyperoffload/Target/JSONInput.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <random>

using namespace mlir;
using namespace mlir::ho;
using llvm::Expected;
namespace json = llvm::json;

namespace {

constexpr int64_t kGiB = int64_t(1) << 30;

/// Compares every field exactly: conversions must round-trip bit for bit.
void expectSameTarget(const Target &actual, const Target &expected) {
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.description, expected.description);
  const DeviceModel &a = actual.device, &e = expected.device;
  EXPECT_EQ(a.peakFlopsF32, e.peakFlopsF32);
  EXPECT_EQ(a.peakFlopsBF16, e.peakFlopsBF16);
  EXPECT_EQ(a.peakFlopsFP8, e.peakFlopsFP8);
  EXPECT_EQ(a.hbmCapacity, e.hbmCapacity);
  EXPECT_EQ(a.hbmBandwidth, e.hbmBandwidth);
  EXPECT_EQ(a.launchOverhead, e.launchOverhead);
  EXPECT_EQ(a.allocationGranularity, e.allocationGranularity);
  EXPECT_EQ(a.cacheReleaseOverhead, e.cacheReleaseOverhead);
  EXPECT_EQ(a.pageMapOverhead, e.pageMapOverhead);
  EXPECT_EQ(a.collectiveBandwidth, e.collectiveBandwidth);
  for (size_t i = 0; i < expected.links.size(); ++i) {
    SCOPED_TRACE("link " + std::to_string(i));
    ASSERT_EQ(actual.links[i].has_value(), expected.links[i].has_value());
    if (!expected.links[i])
      continue;
    const LinkModel &al = *actual.links[i], &el = *expected.links[i];
    EXPECT_EQ(al.bandwidthToDevice, el.bandwidthToDevice);
    EXPECT_EQ(al.bandwidthFromDevice, el.bandwidthFromDevice);
    EXPECT_EQ(al.latency, el.latency);
    EXPECT_EQ(al.queuesPerDirection, el.queuesPerDirection);
    EXPECT_EQ(al.issueOverhead, el.issueOverhead);
    EXPECT_EQ(al.hbmContention, el.hbmContention);
    EXPECT_EQ(al.capacity, el.capacity);
  }
}

Target preset(StringRef name) {
  Expected<Target> target = getTargetPreset(name);
  EXPECT_TRUE(static_cast<bool>(target)) << toString(target.takeError());
  return target ? *target : Target();
}

/// The message of the error `result` holds, or "" when it succeeded.
template <typename T> std::string errorOf(Expected<T> result) {
  return result ? "" : toString(result.takeError());
}
std::string errorOf(llvm::Error error) {
  return error ? toString(std::move(error)) : "";
}

/// A target with only the required fields.
constexpr StringLiteral kMinimal = R"json({
  "name": "t",
  "device": {"peak_tflops": {"bf16": 100}, "hbm_capacity_gib": 16,
             "hbm_bandwidth_gbps": 1000, "collective_bandwidth_gbps": 50},
  "links": {"pool": {"bandwidth_to_device_gbps": 100,
                     "bandwidth_from_device_gbps": 50, "capacity_gib": 256}}
})json";

/// The error from parsing kMinimal with `from` replaced by `to`.
std::string errorWith(StringRef from, StringRef to) {
  std::string json = kMinimal.str();
  size_t at = json.find(from.str());
  EXPECT_NE(at, std::string::npos) << from.str();
  if (at != std::string::npos)
    json.replace(at, from.size(), to.str());
  return errorOf(parseTarget(json, "hw.json"));
}

//===----------------------------------------------------------------------===//
// Presets and the format
//===----------------------------------------------------------------------===//

TEST(TargetPresets, DefaultComesFirst) {
  ArrayRef<StringRef> names = getTargetPresetNames();
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[0], "ascend910c-supernode");
}

TEST(TargetPresets, VariantsChangeOnlyTheirLinks) {
  Target shared = preset("ascend910c-supernode-shared");
  Target supernode = preset("ascend910c-supernode");
  EXPECT_EQ(shared.name, "ascend910c-supernode-shared");
  EXPECT_EQ(shared.getLink(MemoryTier::pool)->bandwidthToDevice, 40e9);
  EXPECT_EQ(shared.getLink(MemoryTier::pool)->bandwidthFromDevice, 40e9);
  EXPECT_EQ(shared.getLink(MemoryTier::host)->bandwidthToDevice,
            supernode.getLink(MemoryTier::host)->bandwidthToDevice);
  EXPECT_EQ(shared.device.hbmCapacity, supernode.device.hbmCapacity);

  Target measured = preset("gh200-c2c-measured");
  EXPECT_EQ(measured.getLink(MemoryTier::host)->bandwidthToDevice, 375e9);
  EXPECT_EQ(measured.getLink(MemoryTier::host)->bandwidthFromDevice, 170e9);
  EXPECT_EQ(measured.device.peakFlopsBF16,
            preset("gh200-c2c").device.peakFlopsBF16);
}

TEST(TargetPresets, EveryPresetLoadsAndRoundTrips) {
  for (StringRef name : getTargetPresetNames()) {
    SCOPED_TRACE(name.str());
    Target target = preset(name);
    EXPECT_EQ(target.name, name);
    EXPECT_FALSE(target.description.empty());
    std::string json = llvm::formatv("{0:2}", toJSON(target)).str();
    Expected<Target> reread = parseTarget(json, "round trip");
    ASSERT_TRUE(static_cast<bool>(reread)) << toString(reread.takeError());
    expectSameTarget(*reread, target);
    Expected<Target> loaded = loadTarget(name);
    ASSERT_TRUE(static_cast<bool>(loaded)) << toString(loaded.takeError());
    expectSameTarget(*loaded, target);
  }
}

TEST(TargetPresets, ConvertsToSIUnits) {
  Target t = preset("ascend910c-supernode");
  EXPECT_EQ(t.device.peakFlopsF32, 94e12);
  EXPECT_EQ(t.device.peakFlopsBF16, 376e12);
  EXPECT_EQ(t.device.peakFlopsFP8, 376e12);
  EXPECT_EQ(t.device.hbmCapacity, 64 * kGiB);
  EXPECT_EQ(t.device.hbmBandwidth, 1.6e12);
  EXPECT_DOUBLE_EQ(t.device.launchOverhead, 5e-6);
  EXPECT_EQ(t.device.allocationGranularity, 512);
  EXPECT_DOUBLE_EQ(t.device.cacheReleaseOverhead, 500e-6);
  EXPECT_DOUBLE_EQ(t.device.pageMapOverhead, 20e-6);
  EXPECT_EQ(t.device.collectiveBandwidth, 196e9);
  const LinkModel *pool = t.getLink(MemoryTier::pool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->bandwidthToDevice, 196e9);
  EXPECT_EQ(pool->bandwidthFromDevice, 196e9);
  EXPECT_DOUBLE_EQ(pool->latency, 1e-6);
  EXPECT_EQ(pool->queuesPerDirection, 2u);
  EXPECT_DOUBLE_EQ(pool->issueOverhead, 30e-6);
  EXPECT_EQ(pool->hbmContention, 0.12);
  EXPECT_EQ(pool->capacity, 1024 * kGiB);
  ASSERT_NE(t.getLink(MemoryTier::host), nullptr);
  EXPECT_DOUBLE_EQ(t.getLink(MemoryTier::host)->bandwidthFromDevice, 33.6e9);
  ASSERT_NE(t.getLink(MemoryTier::disk), nullptr);

  Target host = preset("ascend910c-host");
  EXPECT_EQ(host.getLink(MemoryTier::pool), nullptr);
  EXPECT_EQ(host.getLink(MemoryTier::disk), nullptr);
  EXPECT_DOUBLE_EQ(host.getLink(MemoryTier::host)->bandwidthToDevice, 33.6e9);
}

TEST(TargetFormat, OptionalFieldsTakeTheirDefaults) {
  Expected<Target> t = parseTarget(kMinimal, "hw.json");
  ASSERT_TRUE(static_cast<bool>(t)) << toString(t.takeError());
  EXPECT_EQ(t->description, "");
  EXPECT_EQ(t->device.peakFlopsF32, 50e12);
  EXPECT_EQ(t->device.peakFlopsFP8, 100e12);
  EXPECT_EQ(t->device.launchOverhead, 0);
  EXPECT_EQ(t->device.allocationGranularity, 1);
  EXPECT_EQ(t->device.cacheReleaseOverhead, 0);
  EXPECT_EQ(t->device.pageMapOverhead, 0);
  EXPECT_EQ(t->device.collectiveBandwidth, 50e9);
  const LinkModel *pool = t->getLink(MemoryTier::pool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->bandwidthFromDevice, 50e9);
  EXPECT_EQ(pool->latency, 0);
  EXPECT_EQ(pool->queuesPerDirection, 1u);
  EXPECT_EQ(pool->issueOverhead, 0);
  EXPECT_EQ(pool->hbmContention, 0);
  EXPECT_EQ(pool->capacity, 256 * kGiB);
  EXPECT_EQ(t->getLink(MemoryTier::host), nullptr);
  // Absent optional fields round-trip too.
  Expected<Target> reread =
      parseTarget(llvm::formatv("{0}", toJSON(*t)).str(), "round trip");
  ASSERT_TRUE(static_cast<bool>(reread)) << toString(reread.takeError());
  expectSameTarget(*reread, *t);
}

TEST(TargetFormat, OverriddenValuesRoundTripExactly) {
  // Awkward decimals in every unit, over the seven decades every field
  // accepts: the writer must find the JSON number that reads back as
  // exactly the same SI value.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(1, 10);
  std::uniform_int_distribution<int> exponent(-2, 5);
  Target base = preset("ascend910c-supernode");
  for (int i = 0; i < 200; ++i) {
    std::string v =
        llvm::formatv(
            "{0}", json::Value(mantissa(rng) * std::pow(10.0, exponent(rng))))
            .str();
    Target t = base;
    ASSERT_EQ(
        errorOf(applyTargetOverrides(t, "device.hbm_bandwidth_gbps=" + v +
                                            ",device.launch_overhead_us=" + v +
                                            ",device.peak_tflops.bf16=" + v +
                                            ",links.pool.latency_us=" + v +
                                            ",links.pool.capacity_gib=" + v)),
        "");
    Expected<Target> reread =
        parseTarget(llvm::formatv("{0}", toJSON(t)).str(), "round trip");
    ASSERT_TRUE(static_cast<bool>(reread)) << toString(reread.takeError());
    SCOPED_TRACE(v);
    expectSameTarget(*reread, t);
  }
}

TEST(TargetFormat, MissingFields) {
  EXPECT_EQ(
      errorWith(R"("hbm_bandwidth_gbps": 1000)", R"("launch_overhead_us": 1)"),
      "hw.json: device.hbm_bandwidth_gbps: missing required field "
      "(expected a positive number)");
  EXPECT_EQ(errorWith(R"(, "collective_bandwidth_gbps": 50)", ""),
            "hw.json: device.collective_bandwidth_gbps: missing required "
            "field (expected a positive number)");
  EXPECT_EQ(errorWith(R"({"bf16": 100})", "{}"),
            "hw.json: device.peak_tflops.bf16: missing required field "
            "(expected a positive number)");
  EXPECT_EQ(errorWith(R"("name": "t",)", ""),
            "hw.json: name: missing required field (expected a string)");
  EXPECT_EQ(errorWith(R"(, "capacity_gib": 256)", ""),
            "hw.json: links.pool.capacity_gib: missing required field "
            "(expected a positive number)");
  std::string noLinks = kMinimal.str();
  noLinks.replace(noLinks.find(",\n  \"links\""), std::string::npos, "}");
  EXPECT_EQ(errorOf(parseTarget(noLinks, "hw.json")),
            "hw.json: links: missing required field (expected an object)");
  EXPECT_EQ(errorOf(parseTarget(R"({"name": "t", "device": {}})", "hw.json")),
            "hw.json: device.peak_tflops: missing required field (expected "
            "an object)");
}

TEST(TargetFormat, WrongTypes) {
  EXPECT_EQ(errorWith("16,", R"("16",)"),
            "hw.json: device.hbm_capacity_gib: expected a positive number, "
            "got \"16\"");
  EXPECT_EQ(errorWith(R"("name": "t")", R"("name": 3)"),
            "hw.json: name: expected a non-empty string, got 3");
  EXPECT_EQ(errorWith(R"("name": "t")", R"("name": "")"),
            "hw.json: name: expected a non-empty string, got \"\"");
  EXPECT_EQ(errorWith(R"("name": "t")", R"("name": "t", "description": 1)"),
            "hw.json: description: expected a string, got 1");
  EXPECT_EQ(errorWith(R"({"bf16": 100})", "100"),
            "hw.json: device.peak_tflops: expected an object, got 100");
  EXPECT_EQ(errorOf(parseTarget("[1, 2]", "hw.json")),
            "hw.json: expected an object, got an array");
  EXPECT_EQ(errorWith(R"("bf16": 100)", R"("bf16": [100])"),
            "hw.json: device.peak_tflops.bf16: expected a positive number, "
            "got an array");
  EXPECT_EQ(errorOf(parseTarget(R"({"name": "t", "device": null, "links": {}})",
                                "hw.json")),
            "hw.json: device: expected an object, got null");
}

TEST(TargetFormat, UnknownFieldsAndTiers) {
  EXPECT_EQ(errorWith("hbm_capacity_gib", "hbm_capacity_gb"),
            "hw.json: device.hbm_capacity_gb: unknown field; valid fields "
            "are: peak_tflops, hbm_capacity_gib, hbm_bandwidth_gbps, "
            "launch_overhead_us, allocation_granularity_bytes, "
            "cache_release_overhead_us, page_map_overhead_us, "
            "collective_bandwidth_gbps; did you mean "
            "'hbm_capacity_gib'?");
  EXPECT_EQ(errorWith(R"("bf16": 100)", R"("bf16": 100, "int4": 1)"),
            "hw.json: device.peak_tflops.int4: unknown field; valid fields "
            "are: f32, bf16, fp8");
  EXPECT_EQ(errorWith(R"("pool":)", R"("nvme":)"),
            "hw.json: links.nvme: unknown memory tier; valid tiers are: pool, "
            "host, disk");
  EXPECT_EQ(errorWith(R"(, "capacity_gib": 256)", R"(, "capacity": 256)"),
            "hw.json: links.pool.capacity: unknown field; valid fields are: "
            "bandwidth_to_device_gbps, bandwidth_from_device_gbps, "
            "latency_us, queues_per_direction, issue_overhead_us, "
            "hbm_contention, capacity_gib; did you mean 'capacity_gib'?");
  std::string noLinks = kMinimal.str();
  noLinks.replace(noLinks.find("\"links\""), std::string::npos,
                  "\"links\": {}}");
  EXPECT_EQ(errorOf(parseTarget(noLinks, "hw.json")),
            "hw.json: links: expected at least one link; valid tiers are: "
            "pool, host, disk");
}

TEST(TargetFormat, OutOfRangeValues) {
  EXPECT_EQ(errorWith(R"("bandwidth_to_device_gbps": 100)",
                      R"("bandwidth_to_device_gbps": -3)"),
            "hw.json: links.pool.bandwidth_to_device_gbps: expected a "
            "positive number, got -3");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)", R"("capacity_gib": 0)"),
            "hw.json: links.pool.capacity_gib: expected a positive number, "
            "got 0");
  EXPECT_EQ(errorWith(R"("bf16": 100)", R"("bf16": 0)"),
            "hw.json: device.peak_tflops.bf16: expected a positive number, "
            "got 0");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "latency_us": -1)"),
            "hw.json: links.pool.latency_us: expected a non-negative number, "
            "got -1");
  EXPECT_EQ(errorWith("16,", R"(16, "launch_overhead_us": -0.5,)"),
            "hw.json: device.launch_overhead_us: expected a non-negative "
            "number, got -0.5");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "queues_per_direction": 0)"),
            "hw.json: links.pool.queues_per_direction: expected an integer "
            ">= 1, got 0");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "queues_per_direction": 1.5)"),
            "hw.json: links.pool.queues_per_direction: expected an integer "
            ">= 1, got 1.5");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "hbm_contention": 1)"),
            "hw.json: links.pool.hbm_contention: expected a number in [0, 1), "
            "got 1");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "hbm_contention": -0.1)"),
            "hw.json: links.pool.hbm_contention: expected a number in [0, 1), "
            "got -0.1");
  EXPECT_EQ(errorWith("16,", R"(16, "allocation_granularity_bytes": 0,)"),
            "hw.json: device.allocation_granularity_bytes: expected a power "
            "of two >= 1, got 0");
  EXPECT_EQ(errorWith("16,", R"(16, "allocation_granularity_bytes": 384,)"),
            "hw.json: device.allocation_granularity_bytes: expected a power "
            "of two >= 1, got 384");
  EXPECT_EQ(errorWith("16,", "1e20,"),
            "hw.json: device.hbm_capacity_gib: number too large, got 1e+20; "
            "the limit is 536870912");
}

// Figures no hardware has, which would make a step last longer than a
// double resolves or sizes overflow: rejected, with the accepted range.
TEST(TargetFormat, FiguresOutsideTheSimulatedRange) {
  EXPECT_EQ(errorWith(R"("bandwidth_to_device_gbps": 100)",
                      R"("bandwidth_to_device_gbps": 1e-300)"),
            "hw.json: links.pool.bandwidth_to_device_gbps: number too small, "
            "got 1e-300; the least is 0.001");
  EXPECT_EQ(errorWith(R"("bandwidth_to_device_gbps": 100)",
                      R"("bandwidth_to_device_gbps": 1e308)"),
            "hw.json: links.pool.bandwidth_to_device_gbps: number too large, "
            "got 1e+308; the limit is 1000000");
  EXPECT_EQ(errorWith(R"("capacity_gib": 256)",
                      R"("capacity_gib": 256, "latency_us": 1e300)"),
            "hw.json: links.pool.latency_us: number too large, got 1e+300; "
            "the limit is 1000000");
  EXPECT_EQ(errorWith(R"("bf16": 100)", R"("bf16": 1e-9)"),
            "hw.json: device.peak_tflops.bf16: number too small, got 1e-09; "
            "the least is 1e-06");
  EXPECT_EQ(
      errorWith("16,",
                R"(16, "allocation_granularity_bytes": 4611686018427387904,)"),
      "hw.json: device.allocation_granularity_bytes: number too large, got "
      "4.61168601842739e+18; the limit is 1099511627776");
}

TEST(TargetFormat, SyntaxErrorsGiveLineAndColumn) {
  std::string error =
      errorOf(parseTarget("{\n  \"name\": \"t\",\n}", "hw.json"));
  EXPECT_EQ(error.rfind("hw.json: invalid JSON at line 3, column ", 0), 0u)
      << error;
}

TEST(TargetFormat, RepeatedKeysAndDeepNestingAreErrors) {
  EXPECT_EQ(
      errorOf(parseTarget("{\"name\": \"a\",\n \"name\": \"b\"}", "hw.json")),
      "hw.json: invalid JSON at line 2, column 2: the key \"name\" "
      "appears twice in one object");
  EXPECT_NE(
      errorWith(R"("capacity_gib": 256)",
                R"("capacity_gib": 256, "latency_us": 1, "latency_us": 2)")
          .find("the key \"latency_us\" appears twice in one object"),
      std::string::npos);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(errorOf(parseTarget(deep, "hw.json")),
            "hw.json: invalid JSON at line 1, column 65: nested more than 64 "
            "levels deep");
}

TEST(TargetLoad, DeviceFilesAreNotRead) {
  EXPECT_EQ(errorOf(loadTarget("/dev/zero")),
            "cannot read target file '/dev/zero': not a regular file");
}

TEST(TargetLoad, HugeFilesAreNotRead) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("hyperoffload-huge", "json",
                                                  fd, path));
  // Sparse: the size is refused before a byte is read.
  ASSERT_FALSE(llvm::sys::fs::resize_file(fd, kMaxJSONFileBytes + 1));
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  EXPECT_EQ(errorOf(loadTarget(path)),
            "cannot read target file '" + path.str().str() +
                "': 268435457 bytes, more than the 256 MiB a JSON input may "
                "be");
  llvm::sys::fs::remove(path);
}

//===----------------------------------------------------------------------===//
// Overrides
//===----------------------------------------------------------------------===//

TEST(TargetOverrides, SetsOneFieldAndKeepsTheRest) {
  Target t = preset("ascend910c-supernode");
  Target expected = t;
  EXPECT_EQ(errorOf(applyTargetOverride(
                t, "links.pool.bandwidth_to_device_gbps=100")),
            "");
  expected.getLink(MemoryTier::pool)->bandwidthToDevice = 100e9;
  expectSameTarget(t, expected);

  EXPECT_EQ(errorOf(applyTargetOverride(t, " device.hbm_capacity_gib = 32 ")),
            "");
  EXPECT_EQ(t.device.hbmCapacity, 32 * kGiB);
  EXPECT_EQ(errorOf(applyTargetOverride(t, "name=my-910c")), "");
  EXPECT_EQ(t.name, "my-910c");
}

TEST(TargetOverrides, BandwidthShorthandSetsBothDirections) {
  Target t = preset("ascend910c-supernode");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "links.host.bandwidth_gbps=40")),
            "");
  EXPECT_EQ(t.getLink(MemoryTier::host)->bandwidthToDevice, 40e9);
  EXPECT_EQ(t.getLink(MemoryTier::host)->bandwidthFromDevice, 40e9);
}

TEST(TargetOverrides, EveryLinkShorthandSetsEachLinkTheTargetHas) {
  Target t = preset("ascend910c-supernode");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "links.bandwidth_gbps=25")), "");
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    ASSERT_NE(t.getLink(tier), nullptr);
    EXPECT_EQ(t.getLink(tier)->bandwidthToDevice, 25e9);
    EXPECT_EQ(t.getLink(tier)->bandwidthFromDevice, 25e9);
  }
  // A link the target lacks is not created.
  Target host = preset("ascend910c-host");
  EXPECT_EQ(errorOf(applyTargetOverride(host, "links.bandwidth_gbps=10")), "");
  EXPECT_EQ(host.getLink(MemoryTier::pool), nullptr);
  EXPECT_EQ(host.getLink(MemoryTier::host)->bandwidthToDevice, 10e9);
  // A bad value is reported under the name given, and changes nothing.
  EXPECT_EQ(errorOf(applyTargetOverride(host, "links.bandwidth_gbps=-1")),
            "override 'links.bandwidth_gbps=-1': "
            "links.host.bandwidth_to_device_gbps: expected a positive number, "
            "got -1");
  EXPECT_EQ(host.getLink(MemoryTier::host)->bandwidthToDevice, 10e9);
  // A target without links has nothing to set.
  Target none = preset("ascend910c-host");
  none.links = {};
  EXPECT_EQ(errorOf(applyTargetOverride(none, "links.bandwidth_gbps=10")),
            "override 'links.bandwidth_gbps=10': the target has no links");
}

TEST(TargetOverrides, ListsApplyInOrderOrNotAtAll) {
  Target t = preset("ascend910c-supernode");
  EXPECT_EQ(errorOf(applyTargetOverrides(
                t, "device.hbm_capacity_gib=32, links.pool.latency_us=2,"
                   "device.hbm_capacity_gib=48")),
            "");
  EXPECT_EQ(t.device.hbmCapacity, 48 * kGiB);
  EXPECT_DOUBLE_EQ(t.getLink(MemoryTier::pool)->latency, 2e-6);
  EXPECT_EQ(errorOf(applyTargetOverrides(t, "")), "");

  Target before = t;
  EXPECT_EQ(errorOf(applyTargetOverrides(
                t, "device.hbm_capacity_gib=16,links.pool.latency_us=-1")),
            "override 'links.pool.latency_us=-1': links.pool.latency_us: "
            "expected a non-negative number, got -1");
  expectSameTarget(t, before);
}

TEST(TargetOverrides, BadPaths) {
  Target t = preset("ascend910c-supernode");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "links.pool.bandwith_gbps=3")),
            "override 'links.pool.bandwith_gbps=3': unknown field "
            "'links.pool.bandwith_gbps'; valid fields at 'links.pool' are: "
            "bandwidth_to_device_gbps, bandwidth_from_device_gbps, latency_us, "
            "queues_per_direction, issue_overhead_us, hbm_contention, "
            "capacity_gib, bandwidth_gbps (both directions); did you mean "
            "'bandwidth_gbps'?");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "devices.x=1")),
            "override 'devices.x=1': unknown field 'devices.x'; valid fields "
            "at the top level are: name, description, device, links; did you "
            "mean 'device'?");
  // Under `links`, the shorthand for every link is a field too.
  EXPECT_EQ(errorOf(applyTargetOverride(t, "links.nvme.latency_us=1")),
            "override 'links.nvme.latency_us=1': unknown field "
            "'links.nvme.latency_us'; valid fields at 'links' are: pool, "
            "host, disk, bandwidth_gbps (every link, both directions)");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "links.pool=3")),
            "override 'links.pool=3': 'links.pool' is a group of fields; set "
            "one of: bandwidth_to_device_gbps, bandwidth_from_device_gbps, "
            "latency_us, queues_per_direction, issue_overhead_us, "
            "hbm_contention, capacity_gib, bandwidth_gbps (both directions)");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "device.hbm_capacity_gib.x=1")),
            "override 'device.hbm_capacity_gib.x=1': 'device.hbm_capacity_gib' "
            "is a single field and has no field 'x'");
  EXPECT_EQ(errorOf(applyTargetOverride(t, "device.hbm_capacity_gib")),
            "override 'device.hbm_capacity_gib': expected 'field.path=value', "
            "e.g. 'links.pool.bandwidth_to_device_gbps=100'");
}

TEST(TargetOverrides, BadValues) {
  Target t = preset("ascend910c-supernode");
  Target before = t;
  EXPECT_EQ(errorOf(applyTargetOverride(t, "device.hbm_capacity_gib=abc")),
            "override 'device.hbm_capacity_gib=abc': expected a number for "
            "'device.hbm_capacity_gib', got 'abc'");
  for (StringRef value : {"1e", "nan", "inf", "0x10", "", "1.2.3", "1e400"})
    EXPECT_NE(errorOf(applyTargetOverride(
                  t, ("device.hbm_capacity_gib=" + value).str())),
              "")
        << value.str();
  EXPECT_EQ(
      errorOf(applyTargetOverride(t, "links.pool.bandwidth_to_device_gbps=-3")),
      "override 'links.pool.bandwidth_to_device_gbps=-3': "
      "links.pool.bandwidth_to_device_gbps: expected a positive number, got "
      "-3");
  EXPECT_EQ(errorOf(applyTargetOverride(
                t, "device.allocation_granularity_bytes=100")),
            "override 'device.allocation_granularity_bytes=100': "
            "device.allocation_granularity_bytes: expected a power of two >= "
            "1, got 100");
  expectSameTarget(t, before);
}

TEST(TargetOverrides, AddingALinkNeedsItsRequiredFields) {
  Target t = preset("ascend910c-host");
  EXPECT_EQ(
      errorOf(applyTargetOverride(t, "links.pool.bandwidth_gbps=100")),
      "override 'links.pool.bandwidth_gbps=100': links.pool.capacity_gib: "
      "missing required field (expected a positive number)");
  EXPECT_EQ(t.getLink(MemoryTier::pool), nullptr);
}

//===----------------------------------------------------------------------===//
// loadTarget
//===----------------------------------------------------------------------===//

TEST(TargetLoad, UnknownPresetListsTheValidOnes) {
  EXPECT_EQ(errorOf(loadTarget("ascend910")),
            "unknown target preset 'ascend910'; valid presets are: "
            "ascend910c-supernode, ascend910c-host, h200-pcie5, gh200-c2c, "
            "ascend910c-supernode-shared, gh200-c2c-measured; to read a file, "
            "give a path ending in .json");
}

TEST(TargetLoad, ReadsAFile) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("hyperoffload-target", "json",
                                                  fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMinimal;
  }
  Expected<Target> t = loadTarget(path);
  EXPECT_TRUE(static_cast<bool>(t)) << toString(t.takeError());
  if (t) {
    EXPECT_EQ(t->name, "t");
  }

  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << R"({"name": "t", "devices": {}})";
  }
  EXPECT_EQ(errorOf(loadTarget(path)),
            path.str().str() +
                ": devices: unknown field; valid fields are: name, "
                "description, device, links; did you mean 'device'?");
  llvm::sys::fs::remove(path);
}

TEST(TargetLoad, MissingFileNamesPathAndOSError) {
  EXPECT_EQ(
      errorOf(loadTarget("/nonexistent/hw.json")),
      "cannot read target file '/nonexistent/hw.json': " +
          std::make_error_code(std::errc::no_such_file_or_directory).message());
  // A '/' makes it a path even without the .json suffix.
  EXPECT_EQ(errorOf(loadTarget("./no-such-target"))
                .rfind("cannot read target file './no-such-target': ", 0),
            0u);
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

TEST(TargetQueries, PeakFlopsByElementType) {
  MLIRContext context;
  Builder b(&context);
  DeviceModel d;
  d.peakFlopsF32 = 1;
  d.peakFlopsBF16 = 2;
  d.peakFlopsFP8 = 3;
  EXPECT_EQ(d.getPeakFlops(b.getF32Type()), 1);
  EXPECT_EQ(d.getPeakFlops(b.getF64Type()), 1);
  EXPECT_EQ(d.getPeakFlops(b.getTF32Type()), 1);
  EXPECT_EQ(d.getPeakFlops(b.getBF16Type()), 2);
  EXPECT_EQ(d.getPeakFlops(b.getF16Type()), 2);
  EXPECT_EQ(d.getPeakFlops(Float8E4M3FNType::get(&context)), 3);
  EXPECT_EQ(d.getPeakFlops(Float4E2M1FNType::get(&context)), 3);
  EXPECT_EQ(d.getPeakFlops(b.getI8Type()), 3);
  EXPECT_EQ(d.getPeakFlops(b.getI1Type()), 3);
  EXPECT_EQ(d.getPeakFlops(b.getI16Type()), 1);
  EXPECT_EQ(d.getPeakFlops(b.getI32Type()), 1);
  EXPECT_EQ(d.getPeakFlops(b.getIndexType()), 1);
  EXPECT_EQ(d.getPeakFlops(RankedTensorType::get({4}, b.getBF16Type())), 2);
  EXPECT_EQ(d.getPeakFlops(ComplexType::get(b.getF16Type())), 2);
  EXPECT_EQ(d.getPeakFlops(b.getNoneType()), 1);
}

TEST(TargetQueries, DefaultTierIsTheFastestToTheDevice) {
  EXPECT_EQ(preset("ascend910c-supernode").getDefaultTier(), MemoryTier::pool);
  EXPECT_EQ(preset("ascend910c-host").getDefaultTier(), MemoryTier::host);
  EXPECT_EQ(preset("h200-pcie5").getDefaultTier(), MemoryTier::host);

  Target t = preset("ascend910c-supernode");
  t.getLink(MemoryTier::host)->bandwidthToDevice = 500e9;
  EXPECT_EQ(t.getDefaultTier(), MemoryTier::host);
  // Ties go to the lower tier.
  t.getLink(MemoryTier::pool)->bandwidthToDevice = 500e9;
  EXPECT_EQ(t.getDefaultTier(), MemoryTier::pool);
  EXPECT_EQ(Target().getDefaultTier(), std::nullopt);
}

TEST(TargetQueries, RoundToGranularity) {
  Target t;
  t.device.allocationGranularity = 512;
  EXPECT_EQ(t.roundToGranularity(0), 0);
  EXPECT_EQ(t.roundToGranularity(1), 512);
  EXPECT_EQ(t.roundToGranularity(512), 512);
  EXPECT_EQ(t.roundToGranularity(513), 1024);
  EXPECT_EQ(t.roundToGranularity(-5), 0);
  t.device.allocationGranularity = 1;
  EXPECT_EQ(t.roundToGranularity(7), 7);
}

} // namespace
