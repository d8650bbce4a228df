//===- Target.cpp - Hardware model of a device and its memory tiers -------===//

#include "hyperoffload/Target/Target.h"

#include "hyperoffload/Support/DidYouMean.h"
#include "hyperoffload/Target/JSONInput.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::ho;
using llvm::Error;
using llvm::Expected;
namespace json = llvm::json;

double DeviceModel::*DeviceModel::getPeakFlopsField(Type elementType) {
  // Tensors, vectors and complex numbers compute at their element's rate.
  if (auto shaped = dyn_cast_if_present<ShapedType>(elementType))
    return getPeakFlopsField(shaped.getElementType());
  if (auto complex = dyn_cast_if_present<ComplexType>(elementType))
    return getPeakFlopsField(complex.getElementType());
  if (!elementType || !elementType.isIntOrFloat())
    return &DeviceModel::peakFlopsF32;
  unsigned width = elementType.getIntOrFloatBitWidth();
  if (width <= 8)
    return &DeviceModel::peakFlopsFP8;
  // Only 16-bit floats run at the bf16 rate; i16 has no such fast path.
  if (width == 16 && isa<FloatType>(elementType))
    return &DeviceModel::peakFlopsBF16;
  return &DeviceModel::peakFlopsF32;
}

const LinkModel *Target::getLink(MemoryTier tier) const {
  const std::optional<LinkModel> &link = links[static_cast<size_t>(tier)];
  return link ? &*link : nullptr;
}

LinkModel *Target::getLink(MemoryTier tier) {
  std::optional<LinkModel> &link = links[static_cast<size_t>(tier)];
  return link ? &*link : nullptr;
}

std::optional<MemoryTier> Target::getDefaultTier() const {
  std::optional<MemoryTier> best;
  for (size_t i = 0; i < links.size(); ++i) {
    // Strictly greater, so that ties keep the lower (closer) tier.
    if (links[i] && (!best || links[i]->bandwidthToDevice >
                                  getLink(*best)->bandwidthToDevice))
      best = static_cast<MemoryTier>(i);
  }
  return best;
}

int64_t Target::roundToGranularity(int64_t bytes) const {
  if (bytes <= 0)
    return 0;
  uint64_t granularity = std::max<int64_t>(1, device.allocationGranularity);
  return static_cast<int64_t>(
      llvm::alignTo(static_cast<uint64_t>(bytes), granularity));
}

Expected<Target> ho::loadTarget(StringRef presetOrPath) {
  bool isPath =
      presetOrPath.ends_with(".json") || llvm::any_of(presetOrPath, [](char c) {
        return llvm::sys::path::is_separator(c);
      });
  if (!isPath) {
    Expected<Target> preset = getTargetPreset(presetOrPath);
    if (preset)
      return preset;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        toString(preset.takeError()) +
            "; to read a file, give a path ending in .json" +
            suggestName(presetOrPath, getTargetPresetNames()));
  }
  Expected<std::string> text = readJSONInputFile(presetOrPath);
  if (!text)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read target file '" + presetOrPath +
                                       "': " + toString(text.takeError()));
  return parseTarget(*text, presetOrPath);
}
