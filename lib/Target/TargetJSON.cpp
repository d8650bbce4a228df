//===- TargetJSON.cpp - Reading and writing targets as JSON ---------------===//
//
// The JSON format uses human units named in each field (GB/s, GiB, TFLOPS,
// us); the C++ structs are SI. Reading is strict: unknown fields are errors so
// that a typo cannot silently leave a default in place.
//
//===----------------------------------------------------------------------===//

#include "TargetFormat.h"

#include "hyperoffload/Support/DidYouMean.h"
#include "hyperoffload/Target/JSONInput.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::ho;
using llvm::Error;
using llvm::Expected;
namespace json = llvm::json;

/// Unit scales: JSON value * scale = SI value.
static constexpr double kTera = 1e12; // TFLOPS
static constexpr double kGiga = 1e9;  // GB/s are decimal
static constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
static constexpr double kMicro = 1e-6; // us
/// The largest capacity in GiB: 2^59 bytes, the most any byte count the
/// planner sums may be (see kMaxTensorBytes).
static constexpr double kMaxGiB = 536870912.0;
/// The ranges of rates and delays the simulator is built for, in JSON
/// units: far wider than any hardware, narrow enough that a step's
/// simulated time stays within what a double resolves to the nanosecond
/// and no transfer takes longer than a run.
static constexpr double kMinRate = 1e-3; // 1 MB/s, 1 GFLOP/s
// A peak may be lower: a machine calibrated as `hyperoffload run` uses it
// (scalar loops, software bf16) computes at a fraction of a GFLOP/s.
static constexpr double kMinPeak = 1e-6;          // 1 MFLOP/s
static constexpr double kMaxRate = 1e6;           // 1 PB/s, 1 EFLOP/s
static constexpr double kMaxDelayUs = 1e6;        // 1 s
static constexpr double kMaxGranularity = 0x1p40; // 1 TiB

//===----------------------------------------------------------------------===//
// Schema
//===----------------------------------------------------------------------===//

static constexpr StringRef kTopFields[] = {"name", "description", "device",
                                           "links"};
static constexpr StringRef kDeviceFields[] = {"peak_tflops",
                                              "hbm_capacity_gib",
                                              "hbm_bandwidth_gbps",
                                              "launch_overhead_us",
                                              "allocation_granularity_bytes",
                                              "cache_release_overhead_us",
                                              "page_map_overhead_us",
                                              "collective_bandwidth_gbps"};
static constexpr StringRef kPeakFields[] = {"f32", "bf16", "fp8"};
static constexpr StringRef kLinkFields[] = {"bandwidth_to_device_gbps",
                                            "bandwidth_from_device_gbps",
                                            "latency_us",
                                            "queues_per_direction",
                                            "issue_overhead_us",
                                            "hbm_contention",
                                            "capacity_gib"};

static constexpr size_t kNumTiers =
    std::tuple_size<decltype(Target::links)>::value;
static_assert(getMaxEnumValForMemoryTier() + 1 == kNumTiers,
              "Target::links needs one slot per MemoryTier");

/// The tier names in enum order, as the dialect spells them.
static ArrayRef<StringRef> getTierNames() {
  static const std::array<StringRef, kNumTiers> names = [] {
    std::array<StringRef, kNumTiers> result;
    for (size_t i = 0; i < kNumTiers; ++i)
      result[i] = stringifyMemoryTier(static_cast<MemoryTier>(i));
    return result;
  }();
  return names;
}

std::optional<ArrayRef<StringRef>>
ho::detail::getTargetFieldNames(ArrayRef<StringRef> objectPath) {
  if (objectPath.empty())
    return ArrayRef<StringRef>(kTopFields);
  if (objectPath[0] == "device") {
    if (objectPath.size() == 1)
      return ArrayRef<StringRef>(kDeviceFields);
    if (objectPath.size() == 2 && objectPath[1] == "peak_tflops")
      return ArrayRef<StringRef>(kPeakFields);
  }
  if (objectPath[0] == "links") {
    if (objectPath.size() == 1)
      return getTierNames();
    if (objectPath.size() == 2 && symbolizeMemoryTier(objectPath[1]))
      return ArrayRef<StringRef>(kLinkFields);
  }
  return std::nullopt;
}

bool ho::detail::isTargetStringField(ArrayRef<StringRef> path) {
  return path.size() == 1 && (path[0] == "name" || path[0] == "description");
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Formats a number the way a user would write it ("-3", "0.1", "1e+20").
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.15g", value);
  return text;
}

/// Names what a JSON value is, for "got ..." in error messages.
static std::string describe(const json::Value &value) {
  if (std::optional<double> number = value.getAsNumber())
    return formatNumber(*number);
  if (value.getAsArray())
    return "an array";
  if (value.getAsObject())
    return "an object";
  return llvm::formatv("{0}", value).str(); // a string, a boolean or null
}

namespace {
/// What a number field must satisfy; each rule has one message.
enum class Rule { Positive, NonNegative, Fraction, Count, PowerOfTwo };

/// How to read one number field.
struct NumberSpec {
  Rule rule;
  /// The value (in JSON units) used when the field is absent; std::nullopt
  /// makes the field required.
  std::optional<double> defaultValue;
  /// JSON value * scale = SI value.
  double scale = 1;
  /// The largest JSON value accepted, so that integer fields fit and the
  /// simulation stays within what doubles resolve.
  double max = std::numeric_limits<double>::max();
  /// The smallest positive JSON value accepted (zero stays zero where the
  /// rule allows it).
  double min = 0;
};

/// A rate: a bandwidth in GB/s or a peak in TFLOP/s.
NumberSpec rate(std::optional<double> defaultValue, double scale) {
  return {Rule::Positive, defaultValue, scale, kMaxRate, kMinRate};
}

/// A peak in TFLOP/s.
NumberSpec peak(std::optional<double> defaultValue) {
  return {Rule::Positive, defaultValue, kTera, kMaxRate, kMinPeak};
}

/// A delay in microseconds.
NumberSpec delay() { return {Rule::NonNegative, 0.0, kMicro, kMaxDelayUs}; }

StringLiteral getExpectation(Rule rule) {
  switch (rule) {
  case Rule::Positive:
    return "expected a positive number";
  case Rule::NonNegative:
    return "expected a non-negative number";
  case Rule::Fraction:
    return "expected a number in [0, 1)";
  case Rule::Count:
    return "expected an integer >= 1";
  case Rule::PowerOfTwo:
    return "expected a power of two >= 1";
  }
  llvm_unreachable("unknown rule");
}

bool satisfies(double value, Rule rule) {
  bool isInteger = std::floor(value) == value;
  switch (rule) {
  case Rule::Positive:
    return value > 0;
  case Rule::NonNegative:
    return value >= 0;
  case Rule::Fraction:
    return value >= 0 && value < 1;
  case Rule::Count:
    return value >= 1 && isInteger;
  case Rule::PowerOfTwo:
    return value >= 1 && value <= 0x1p62 && isInteger &&
           llvm::isPowerOf2_64(static_cast<uint64_t>(value));
  }
  llvm_unreachable("unknown rule");
}

/// Reads a Target from a json::Value and stops at the first error. Errors are
/// reported on a json::Path; since Path only takes string-literal messages,
/// what was found goes into `found` and is appended when the error is built.
class TargetReader {
public:
  explicit TargetReader(StringRef source) : source(source.str()) {}

  Expected<Target> read(const json::Value &value) {
    Target target;
    json::Path path(root);
    const json::Object *object = getObject(value, path);
    if (object && checkFields(*object, kTopFields, path) &&
        readString(*object, "name", path, /*required=*/true, target.name) &&
        readString(*object, "description", path, /*required=*/false,
                   target.description) &&
        readDevice(*object, path, target.device) &&
        readLinks(*object, path, target))
      return target;
    return takeError();
  }

private:
  bool fail(json::Path path, StringLiteral message, std::string detail = "") {
    path.report(message);
    found = std::move(detail);
    return false;
  }

  /// Builds "<source>: <field path>: <message><found>" from the root, which
  /// formats its error as "<message> at $.<field path>".
  Error takeError() {
    std::string text = toString(root.getError());
    StringRef message = text, fieldPath;
    size_t at = message.find(" at $");
    if (at != StringRef::npos) {
      fieldPath = message.substr(at + 5);
      fieldPath.consume_front(".");
      message = message.take_front(at);
    } else {
      message.consume_back(" when parsing $"); // an error at the top level
    }
    std::string result = source + ": ";
    if (!fieldPath.empty())
      result += (fieldPath + ": ").str();
    result += (message + found).str();
    return llvm::createStringError(llvm::inconvertibleErrorCode(), result);
  }

  const json::Object *getObject(const json::Value &value, json::Path path) {
    if (const json::Object *object = value.getAsObject())
      return object;
    fail(path, "expected an object", ", got " + describe(value));
    return nullptr;
  }

  /// Returns the object in field `key` of `parent`, whose own fields must be
  /// among `names`.
  const json::Object *readObject(const json::Object &parent, StringRef key,
                                 json::Path parentPath,
                                 ArrayRef<StringRef> names, bool areTiers) {
    json::Path path = parentPath.field(key);
    const json::Value *value = parent.get(key);
    if (!value) {
      fail(path, "missing required field", " (expected an object)");
      return nullptr;
    }
    const json::Object *object = getObject(*value, path);
    if (!object || !checkFields(*object, names, path, areTiers))
      return nullptr;
    return object;
  }

  /// Reports a field of `object` that is not in `names`: the first in sorted
  /// order, so that the message does not depend on hashing.
  bool checkFields(const json::Object &object, ArrayRef<StringRef> names,
                   json::Path path, bool areTiers = false) {
    std::optional<StringRef> unknown;
    for (const auto &entry : object) {
      StringRef key = entry.first;
      if (!llvm::is_contained(names, key) && (!unknown || key < *unknown))
        unknown = key;
    }
    if (!unknown)
      return true;
    std::string detail =
        llvm::formatv("; valid {0} are: {1}", areTiers ? "tiers" : "fields",
                      llvm::join(names, ", "));
    detail += suggestName(*unknown, names);
    return fail(path.field(*unknown),
                areTiers ? StringLiteral("unknown memory tier")
                         : StringLiteral("unknown field"),
                detail);
  }

  bool readString(const json::Object &object, StringRef key, json::Path parent,
                  bool required, std::string &out) {
    json::Path path = parent.field(key);
    const json::Value *value = object.get(key);
    if (!value) {
      if (required)
        return fail(path, "missing required field", " (expected a string)");
      return true;
    }
    std::optional<StringRef> text = value->getAsString();
    if (!text || (required && text->empty()))
      return fail(path,
                  required ? StringLiteral("expected a non-empty string")
                           : StringLiteral("expected a string"),
                  ", got " + describe(*value));
    out = text->str();
    return true;
  }

  bool readNumber(const json::Object &object, StringRef key, json::Path parent,
                  const NumberSpec &spec, double &out) {
    json::Path path = parent.field(key);
    const json::Value *value = object.get(key);
    if (!value) {
      if (!spec.defaultValue)
        return fail(path, "missing required field",
                    (" (" + getExpectation(spec.rule) + ")").str());
      out = *spec.defaultValue * spec.scale;
      return true;
    }
    std::optional<double> number = value->getAsNumber();
    if (!number || !satisfies(*number, spec.rule))
      return fail(path, getExpectation(spec.rule), ", got " + describe(*value));
    if (*number > spec.max)
      return fail(path, "number too large",
                  ", got " + describe(*value) + "; the limit is " +
                      formatNumber(spec.max));
    if (*number != 0 && *number < spec.min)
      return fail(path, "number too small",
                  ", got " + describe(*value) + "; the least is " +
                      formatNumber(spec.min));
    out = *number * spec.scale;
    return true;
  }

  /// Reads a capacity in GiB into bytes; at least one byte.
  bool readCapacity(const json::Object &object, StringRef key,
                    json::Path parent, int64_t &out) {
    double bytes;
    if (!readNumber(object, key, parent,
                    {Rule::Positive, std::nullopt, kGiB, kMaxGiB}, bytes))
      return false;
    out = std::max<int64_t>(1, std::llround(bytes));
    return true;
  }

  bool readDevice(const json::Object &parent, json::Path parentPath,
                  DeviceModel &device) {
    json::Path path = parentPath.field("device");
    const json::Object *object =
        readObject(parent, "device", parentPath, kDeviceFields, false);
    if (!object)
      return false;
    json::Path peakPath = path.field("peak_tflops");
    const json::Object *peaks =
        readObject(*object, "peak_tflops", path, kPeakFields, false);
    if (!peaks || !readNumber(*peaks, "bf16", peakPath, peak(std::nullopt),
                              device.peakFlopsBF16))
      return false;
    // Without a figure, f32 runs at half the bf16 rate and 8-bit types gain
    // nothing over bf16.
    double bf16 = device.peakFlopsBF16 / kTera;
    double granularity = 0;
    if (!readNumber(*peaks, "f32", peakPath, peak(bf16 / 2),
                    device.peakFlopsF32) ||
        !readNumber(*peaks, "fp8", peakPath, peak(bf16), device.peakFlopsFP8) ||
        !readCapacity(*object, "hbm_capacity_gib", path, device.hbmCapacity) ||
        !readNumber(*object, "hbm_bandwidth_gbps", path,
                    rate(std::nullopt, kGiga), device.hbmBandwidth) ||
        !readNumber(*object, "launch_overhead_us", path, delay(),
                    device.launchOverhead) ||
        !readNumber(*object, "allocation_granularity_bytes", path,
                    {Rule::PowerOfTwo, 1.0, 1, kMaxGranularity}, granularity) ||
        !readNumber(*object, "cache_release_overhead_us", path, delay(),
                    device.cacheReleaseOverhead) ||
        !readNumber(*object, "page_map_overhead_us", path, delay(),
                    device.pageMapOverhead) ||
        !readNumber(*object, "collective_bandwidth_gbps", path,
                    rate(std::nullopt, kGiga), device.collectiveBandwidth))
      return false;
    device.allocationGranularity = static_cast<int64_t>(granularity);
    return true;
  }

  bool readLinks(const json::Object &parent, json::Path parentPath,
                 Target &target) {
    const json::Object *object =
        readObject(parent, "links", parentPath, getTierNames(), true);
    if (!object)
      return false;
    json::Path path = parentPath.field("links");
    if (object->empty())
      return fail(path, "expected at least one link",
                  "; valid tiers are: " + llvm::join(getTierNames(), ", "));
    for (auto [index, tier] : llvm::enumerate(getTierNames())) {
      if (!object->get(tier))
        continue;
      LinkModel &link = target.links[index].emplace();
      if (!readLink(*object, tier, path, link))
        return false;
    }
    return true;
  }

  bool readLink(const json::Object &parent, StringRef tier,
                json::Path parentPath, LinkModel &link) {
    json::Path path = parentPath.field(tier);
    const json::Object *object =
        readObject(parent, tier, parentPath, kLinkFields, false);
    double queues = 0;
    if (!object ||
        !readNumber(*object, "bandwidth_to_device_gbps", path,
                    rate(std::nullopt, kGiga), link.bandwidthToDevice) ||
        !readNumber(*object, "bandwidth_from_device_gbps", path,
                    rate(std::nullopt, kGiga), link.bandwidthFromDevice) ||
        !readNumber(*object, "latency_us", path, delay(), link.latency) ||
        !readNumber(
            *object, "queues_per_direction", path,
            {Rule::Count, 1.0, 1, double(std::numeric_limits<unsigned>::max())},
            queues) ||
        !readNumber(*object, "issue_overhead_us", path, delay(),
                    link.issueOverhead) ||
        !readNumber(*object, "hbm_contention", path, {Rule::Fraction, 0.0},
                    link.hbmContention) ||
        !readCapacity(*object, "capacity_gib", path, link.capacity))
      return false;
    link.queuesPerDirection = static_cast<unsigned>(queues);
    return true;
  }

  std::string source;
  json::Path::Root root{"$"};
  /// What the failing field held, appended to the Path's message.
  std::string found;
};
} // namespace

Expected<Target> ho::detail::readTarget(const json::Value &value,
                                        StringRef sourceName) {
  return TargetReader(sourceName).read(value);
}

/// Rewrites the JSON parser's "[3:5, byte=20]: message" as
/// "line 3, column 5: message".
static std::string describeSyntaxError(Error error) {
  std::string text = toString(std::move(error));
  StringRef rest = text;
  if (!rest.consume_front("["))
    return text;
  auto [position, message] = rest.split("]: ");
  auto [line, column] = position.split(", ").first.split(':');
  if (line.empty() || column.empty() || message.empty())
    return text;
  return llvm::formatv("line {0}, column {1}: {2}", line, column, message);
}

Expected<Target> ho::parseTarget(StringRef json, StringRef sourceName) {
  Expected<json::Value> value = parseJSONInput(json);
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   sourceName + ": invalid JSON at " +
                                       describeSyntaxError(value.takeError()));
  return detail::readTarget(*value, sourceName);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Converts an SI value to its JSON unit. Prefers a short decimal that reads
/// back as exactly `si` (5e-6 s -> 5 us, not 5.000000000000001), so that files
/// stay readable and parseTarget(toJSON(t)) == t.
static double toUnit(double si, double scale) {
  double exact = si / scale;
  double rounded = std::strtod(formatNumber(exact).c_str(), nullptr);
  for (double candidate : {rounded, exact, std::nextafter(exact, -HUGE_VAL),
                           std::nextafter(exact, HUGE_VAL)})
    if (candidate * scale == si)
      return candidate;
  return exact;
}

static json::Object linkToJSON(const LinkModel &link) {
  return json::Object{
      {"bandwidth_to_device_gbps", toUnit(link.bandwidthToDevice, kGiga)},
      {"bandwidth_from_device_gbps", toUnit(link.bandwidthFromDevice, kGiga)},
      {"latency_us", toUnit(link.latency, kMicro)},
      {"queues_per_direction", static_cast<int64_t>(link.queuesPerDirection)},
      {"issue_overhead_us", toUnit(link.issueOverhead, kMicro)},
      {"hbm_contention", link.hbmContention},
      {"capacity_gib", toUnit(static_cast<double>(link.capacity), kGiB)}};
}

json::Value ho::toJSON(const Target &target) {
  const DeviceModel &device = target.device;
  json::Object jsonDevice{
      {"peak_tflops",
       json::Object{{"f32", toUnit(device.peakFlopsF32, kTera)},
                    {"bf16", toUnit(device.peakFlopsBF16, kTera)},
                    {"fp8", toUnit(device.peakFlopsFP8, kTera)}}},
      {"hbm_capacity_gib",
       toUnit(static_cast<double>(device.hbmCapacity), kGiB)},
      {"hbm_bandwidth_gbps", toUnit(device.hbmBandwidth, kGiga)},
      {"launch_overhead_us", toUnit(device.launchOverhead, kMicro)},
      {"allocation_granularity_bytes", device.allocationGranularity},
      {"cache_release_overhead_us",
       toUnit(device.cacheReleaseOverhead, kMicro)},
      {"page_map_overhead_us", toUnit(device.pageMapOverhead, kMicro)},
      {"collective_bandwidth_gbps", toUnit(device.collectiveBandwidth, kGiga)}};

  json::Object links;
  for (auto [index, tier] : llvm::enumerate(getTierNames()))
    if (const std::optional<LinkModel> &link = target.links[index])
      links[tier] = linkToJSON(*link);

  return json::Object{{"name", target.name},
                      {"description", target.description},
                      {"device", std::move(jsonDevice)},
                      {"links", std::move(links)}};
}
