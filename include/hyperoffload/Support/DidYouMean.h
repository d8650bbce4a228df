//===- DidYouMean.h - Suggest the name a typo meant -------------*- C++ -*-===//
//
// Errors about an unknown name (a preset, a model, a field, a policy) list
// the valid ones; where one of them is close to what was typed, they also
// say which.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SUPPORT_DIDYOUMEAN_H
#define HYPEROFFLOAD_SUPPORT_DIDYOUMEAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::ho {

/// The candidate `name` was most likely meant as: one that only adds a
/// unit to it (`latency` for `latency_us`), else the only one it begins
/// (`h200` for `h200-pcie5`), else the only one that holds it, else the
/// nearest within three edits. Empty when none is that close.
template <typename Names>
std::string getClosestName(llvm::StringRef name, const Names &candidates) {
  if (name.empty())
    return "";
  for (llvm::StringRef candidate : candidates)
    if (candidate.starts_with(name) &&
        candidate.drop_front(name.size()).starts_with("_"))
      return candidate.str();
  for (bool prefixOnly : {true, false}) {
    std::string match;
    unsigned matches = 0;
    for (llvm::StringRef candidate : candidates)
      if (prefixOnly ? candidate.starts_with(name) : candidate.contains(name)) {
        match = candidate.str();
        ++matches;
      }
    if (matches == 1)
      return match;
  }
  std::string closest;
  unsigned best = 4;
  for (llvm::StringRef candidate : candidates) {
    unsigned distance = name.edit_distance(candidate, true, best - 1);
    if (distance < best) {
      best = distance;
      closest = candidate.str();
    }
  }
  return closest;
}

/// "; did you mean 'NAME'?" for the closest candidate, or nothing.
template <typename Names>
std::string suggestName(llvm::StringRef name, const Names &candidates) {
  std::string closest = getClosestName(name, candidates);
  return closest.empty() ? "" : "; did you mean '" + closest + "'?";
}

} // namespace mlir::ho

#endif // HYPEROFFLOAD_SUPPORT_DIDYOUMEAN_H
