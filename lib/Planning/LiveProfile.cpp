//===- LiveProfile.cpp - Live bytes per point under planning --------------===//

#include "LiveProfile.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace mlir;
using namespace mlir::ho;

static constexpr int64_t kNoneOver = std::numeric_limits<int64_t>::max();
static constexpr int64_t kNoneWithin = std::numeric_limits<int64_t>::min();

LiveProfile::LiveProfile(llvm::ArrayRef<int64_t> live, int64_t budget)
    : numPoints(live.size()), budget(budget) {
  assert(!live.empty() && "a body has at least its entry and exit");
  // Depth ceil(log2 n) at most, so node indices stay below 2 * bit_ceil(n).
  nodes.resize(2 * llvm::bit_ceil(live.size()));
  build(1, 0, numPoints, live);
}

void LiveProfile::build(unsigned node, unsigned first, unsigned last,
                        llvm::ArrayRef<int64_t> live) {
  if (last - first == 1)
    return setLeaf(node, live[first]);
  unsigned middle = (first + last) / 2;
  build(2 * node, first, middle, live);
  build(2 * node + 1, middle, last, live);
  nodes[node].pending = 0;
  pull(node);
}

void LiveProfile::setLeaf(unsigned node, int64_t bytes) {
  bool over = bytes > budget;
  nodes[node] = {bytes, over ? bytes : kNoneOver, over ? kNoneWithin : bytes,
                 over ? 1u : 0u, 0};
}

void LiveProfile::pull(unsigned node) {
  const Node &left = nodes[2 * node], &right = nodes[2 * node + 1];
  Node &parent = nodes[node];
  parent.max = std::max(left.max, right.max);
  parent.minOver = std::min(left.minOver, right.minOver);
  parent.maxWithin = std::max(left.maxWithin, right.maxWithin);
  parent.numOver = left.numOver + right.numOver;
}

void LiveProfile::applyToNode(unsigned node, int64_t bytes) {
  Node &target = nodes[node];
  target.max += bytes;
  if (target.minOver != kNoneOver)
    target.minOver += bytes;
  if (target.maxWithin != kNoneWithin)
    target.maxWithin += bytes;
  target.pending += bytes;
}

void LiveProfile::pushDown(unsigned node) {
  if (nodes[node].pending == 0)
    return;
  applyToNode(2 * node, nodes[node].pending);
  applyToNode(2 * node + 1, nodes[node].pending);
  nodes[node].pending = 0;
}

bool LiveProfile::hasCrossedBudget(unsigned node) const {
  return nodes[node].minOver <= budget || nodes[node].maxWithin > budget;
}

void LiveProfile::reclassify(unsigned node, unsigned first, unsigned last) {
  if (!hasCrossedBudget(node))
    return;
  if (last - first == 1)
    return setLeaf(node, nodes[node].max);
  pushDown(node);
  unsigned middle = (first + last) / 2;
  reclassify(2 * node, first, middle);
  reclassify(2 * node + 1, middle, last);
  pull(node);
}

void LiveProfile::add(unsigned first, unsigned last, int64_t bytes) {
  last = std::min(last, numPoints);
  if (first < last && bytes != 0)
    add(1, 0, numPoints, first, last, bytes);
}

void LiveProfile::add(unsigned node, unsigned first, unsigned last,
                      unsigned from, unsigned to, int64_t bytes) {
  if (to <= first || last <= from)
    return;
  if (from <= first && last <= to) {
    applyToNode(node, bytes);
    return reclassify(node, first, last);
  }
  pushDown(node);
  unsigned middle = (first + last) / 2;
  add(2 * node, first, middle, from, to, bytes);
  add(2 * node + 1, middle, last, from, to, bytes);
  pull(node);
}

int64_t LiveProfile::get(unsigned point) const {
  // Additions not yet pushed down wait at the ancestors.
  int64_t notPushed = 0;
  unsigned node = 1, first = 0, last = numPoints;
  while (last - first > 1) {
    notPushed += nodes[node].pending;
    unsigned middle = (first + last) / 2;
    if (point < middle) {
      node = 2 * node;
      last = middle;
    } else {
      node = 2 * node + 1;
      first = middle;
    }
  }
  return nodes[node].max + notPushed;
}

unsigned LiveProfile::getPeakPoint() const {
  // Both children lack the same additions, so comparing them is exact.
  unsigned node = 1, first = 0, last = numPoints;
  while (last - first > 1) {
    unsigned middle = (first + last) / 2;
    if (nodes[2 * node].max >= nodes[2 * node + 1].max) {
      node = 2 * node;
      last = middle;
    } else {
      node = 2 * node + 1;
      first = middle;
    }
  }
  return first;
}

int64_t LiveProfile::countOverBudget(unsigned first, unsigned last) const {
  last = std::min(last, numPoints);
  return first >= last ? 0 : countOverBudget(1, 0, numPoints, first, last);
}

int64_t LiveProfile::countOverBudget(unsigned node, unsigned first,
                                     unsigned last, unsigned from,
                                     unsigned to) const {
  if (to <= first || last <= from)
    return 0;
  if (from <= first && last <= to)
    return nodes[node].numOver;
  unsigned middle = (first + last) / 2;
  return countOverBudget(2 * node, first, middle, from, to) +
         countOverBudget(2 * node + 1, middle, last, from, to);
}

std::optional<unsigned> LiveProfile::findFirstAbove(unsigned first,
                                                    unsigned last,
                                                    int64_t bytes) const {
  last = std::min(last, numPoints);
  if (first >= last)
    return std::nullopt;
  return findAbove(/*lastFirst=*/false, 1, 0, numPoints, first, last, bytes, 0);
}

std::optional<unsigned>
LiveProfile::findLastAbove(unsigned first, unsigned last, int64_t bytes) const {
  last = std::min(last, numPoints);
  if (first >= last)
    return std::nullopt;
  return findAbove(/*lastFirst=*/true, 1, 0, numPoints, first, last, bytes, 0);
}

std::optional<unsigned> LiveProfile::findAbove(bool lastFirst, unsigned node,
                                               unsigned first, unsigned last,
                                               unsigned from, unsigned to,
                                               int64_t bytes,
                                               int64_t notPushed) const {
  if (to <= first || last <= from || nodes[node].max + notPushed <= bytes)
    return std::nullopt;
  if (last - first == 1)
    return first;
  notPushed += nodes[node].pending;
  unsigned middle = (first + last) / 2;
  auto searchLeft = [&] {
    return findAbove(lastFirst, 2 * node, first, middle, from, to, bytes,
                     notPushed);
  };
  auto searchRight = [&] {
    return findAbove(lastFirst, 2 * node + 1, middle, last, from, to, bytes,
                     notPushed);
  };
  // The half at the end searched for first.
  std::optional<unsigned> found = lastFirst ? searchRight() : searchLeft();
  if (found)
    return found;
  return lastFirst ? searchLeft() : searchRight();
}
