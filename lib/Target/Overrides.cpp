//===- Overrides.cpp - Changing single fields of a target -----------------===//
//
// An override edits the target's JSON form and reads it back, so that an
// overridden value is validated exactly like one in a file.
//
//===----------------------------------------------------------------------===//

#include "TargetFormat.h"

#include "hyperoffload/Support/DidYouMean.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ho;
using llvm::Error;
using llvm::Expected;
namespace json = llvm::json;

/// Sets both directions of a link: links.<tier>.bandwidth_gbps.
static constexpr StringLiteral kBandwidthShorthand = "bandwidth_gbps";

static Error overrideError(StringRef assignment, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "override '" + assignment + "': " + message);
}

/// Parses a plain decimal number. StringRef::getAsDouble alone also takes
/// "1e", "inf" and "nan".
static std::optional<double> parseNumber(StringRef text) {
  static const llvm::Regex decimal(
      "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$");
  double value;
  if (!decimal.match(text) || text.getAsDouble(value) || !std::isfinite(value))
    return std::nullopt;
  return value;
}

static bool isLinkLevel(ArrayRef<StringRef> objectPath) {
  return objectPath.size() == 2 && objectPath[0] == "links";
}

/// The fields an override may set in the object at `objectPath`.
static std::string listFields(ArrayRef<StringRef> objectPath,
                              ArrayRef<StringRef> names) {
  std::string list = llvm::join(names, ", ");
  if (isLinkLevel(objectPath))
    list += (", " + kBandwidthShorthand + " (both directions)").str();
  // `links.bandwidth_gbps` sets every link at once.
  if (objectPath.size() == 1 && objectPath[0] == "links")
    list +=
        (", " + kBandwidthShorthand + " (every link, both directions)").str();
  return list;
}

static std::string describeLevel(ArrayRef<StringRef> objectPath) {
  if (objectPath.empty())
    return "the top level";
  return "'" + llvm::join(objectPath, ".") + "'";
}

static Error applyToEveryLink(Target &target, StringRef assignment,
                              StringRef valueText) {
  Target updated = target;
  bool any = false;
  for (MemoryTier tier :
       {MemoryTier::pool, MemoryTier::host, MemoryTier::disk}) {
    if (!updated.getLink(tier))
      continue;
    any = true;
    std::string each = ("links." + stringifyMemoryTier(tier) + "." +
                        kBandwidthShorthand + "=" + valueText)
                           .str();
    if (Error error = applyTargetOverride(updated, each)) {
      // Report it under the name the user wrote, not the per-link one.
      std::string message = llvm::toString(std::move(error));
      StringRef reason = StringRef(message).split("': ").second;
      return overrideError(assignment, reason);
    }
  }
  if (!any)
    return overrideError(assignment, "the target has no links");
  target = std::move(updated);
  return Error::success();
}

Error ho::applyTargetOverride(Target &target, StringRef assignment) {
  auto [pathText, valueText] = assignment.split('=');
  pathText = pathText.trim();
  valueText = valueText.trim();
  if (!assignment.contains('=') || pathText.empty())
    return overrideError(assignment,
                         "expected 'field.path=value', e.g. "
                         "'links.pool.bandwidth_to_device_gbps=100'");
  // links.bandwidth_gbps: both directions of every link the target has.
  if (pathText == ("links." + kBandwidthShorthand).str())
    return applyToEveryLink(target, assignment, valueText);
  SmallVector<StringRef> path;
  pathText.split(path, '.');

  // Walk the JSON form, checking each step against the schema so that a typo
  // is reported together with the fields that do exist.
  json::Value root = toJSON(target);
  json::Object *object = root.getAsObject();
  for (auto [i, field] : llvm::enumerate(path)) {
    ArrayRef<StringRef> prefix = ArrayRef(path).take_front(i);
    std::optional<ArrayRef<StringRef>> names =
        detail::getTargetFieldNames(prefix);
    if (!names)
      return overrideError(assignment, describeLevel(prefix) +
                                           " is a single field and has no "
                                           "field '" +
                                           field + "'");
    bool isShorthand = isLinkLevel(prefix) && field == kBandwidthShorthand &&
                       i + 1 == path.size();
    if (!llvm::is_contained(*names, field) && !isShorthand) {
      SmallVector<StringRef> candidates(names->begin(), names->end());
      if (isLinkLevel(prefix) || (prefix.size() == 1 && prefix[0] == "links"))
        candidates.push_back(kBandwidthShorthand);
      return overrideError(assignment,
                           "unknown field '" + pathText +
                               "'; valid fields at " + describeLevel(prefix) +
                               " are: " + listFields(prefix, *names) +
                               suggestName(field, candidates));
    }
    if (i + 1 == path.size())
      break;
    // Absent objects (a link the target lacks) are created; reading back
    // then asks for their required fields.
    json::Value &child = (*object)[field];
    if (!child.getAsObject())
      child = json::Object();
    object = child.getAsObject();
  }
  if (std::optional<ArrayRef<StringRef>> names =
          detail::getTargetFieldNames(path))
    return overrideError(
        assignment, "'" + pathText + "' is a group of fields; set one of: " +
                        listFields(path, *names));

  json::Value value = nullptr;
  if (detail::isTargetStringField(path)) {
    value = valueText.str();
  } else if (std::optional<double> number = parseNumber(valueText)) {
    value = *number;
  } else {
    return overrideError(assignment, "expected a number for '" + pathText +
                                         "', got '" + valueText + "'");
  }
  if (path.back() == kBandwidthShorthand) {
    (*object)["bandwidth_to_device_gbps"] = value;
    (*object)["bandwidth_from_device_gbps"] = std::move(value);
  } else {
    (*object)[path.back()] = std::move(value);
  }

  Expected<Target> updated =
      detail::readTarget(root, ("override '" + assignment + "'").str());
  if (!updated)
    return updated.takeError();
  target = std::move(*updated);
  return Error::success();
}

Error ho::applyTargetOverrides(Target &target, StringRef assignments) {
  if (assignments.trim().empty())
    return Error::success();
  // All or nothing: a failing override leaves `target` as it was.
  Target updated = target;
  SmallVector<StringRef> items;
  assignments.split(items, ',');
  for (StringRef item : items)
    if (Error error = applyTargetOverride(updated, item.trim()))
      return error;
  target = std::move(updated);
  return Error::success();
}
