//===- MemoryBudget.cpp - How much device memory a run may use ------------===//

#include "hyperoffload/Target/MemoryBudget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

static llvm::Error budgetError(llvm::StringRef text, llvm::StringRef why) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "invalid memory budget '" + text + "': " + why +
          " (expected bytes with a unit such as 48GiB or 500MB, a fraction "
          "of the capacity such as 0.75, or a percentage such as 75%)");
}

/// Rounds a budget down to whole bytes; less than one byte is an error (it
/// would otherwise read as "no budget").
static llvm::Expected<int64_t> toBytes(llvm::StringRef text, double bytes) {
  if (bytes < 1)
    return budgetError(text, "it is less than one byte");
  // Far beyond any device, and the largest a byte count converts to
  // exactly; the planner's sums stay within int64 below it.
  if (bytes > 0x1p59)
    return budgetError(text, "it is more than 2^59 bytes (512 PiB)");
  return static_cast<int64_t>(std::floor(bytes));
}

llvm::Expected<int64_t> ho::parseMemoryBudget(llvm::StringRef text,
                                              int64_t capacity) {
  llvm::StringRef trimmed = text.trim();
  if (trimmed.empty())
    return capacity;

  // Split the number from its unit.
  size_t unitStart = trimmed.find_first_not_of("0123456789.eE+-");
  llvm::StringRef number = trimmed.substr(0, unitStart);
  llvm::StringRef unit = unitStart == llvm::StringRef::npos
                             ? ""
                             : trimmed.substr(unitStart).trim();
  double value;
  if (number.empty() || number.getAsDouble(value) || !std::isfinite(value))
    return budgetError(text, "not a number");
  if (value <= 0)
    return budgetError(text, "it must be positive");

  if (unit.empty()) {
    if (value > 1)
      return budgetError(text, "a plain number is a fraction of the "
                               "capacity and must not exceed 1");
    return toBytes(text, value * capacity);
  }
  if (unit == "%") {
    if (value > 100)
      return budgetError(text, "a percentage must not exceed 100%");
    return toBytes(text, value / 100 * capacity);
  }
  double scale = llvm::StringSwitch<double>(unit)
                     .Case("B", 1)
                     .Case("KB", 1e3)
                     .Case("MB", 1e6)
                     .Case("GB", 1e9)
                     .Case("TB", 1e12)
                     .Case("KiB", 0x1p10)
                     .Case("MiB", 0x1p20)
                     .Case("GiB", 0x1p30)
                     .Case("TiB", 0x1p40)
                     .Default(0);
  if (scale == 0) {
    static const llvm::StringRef units[] = {"B",   "KB",  "MB",  "GB", "TB",
                                            "KiB", "MiB", "GiB", "TiB"};
    // `gb` and `G` both mean GB.
    std::string hint;
    for (llvm::StringRef known : units)
      if (known.equals_insensitive(unit) ||
          known.equals_insensitive((unit + "B").str()))
        hint = "; did you mean '" + known.str() + "'?";
    return budgetError(text, "unknown unit '" + unit.str() +
                                 "': the units are B, KB, MB, GB, TB (powers "
                                 "of 1000) and KiB, MiB, GiB, TiB (powers of "
                                 "1024), in that case" +
                                 hint);
  }
  return toBytes(text, value * scale);
}

std::string ho::formatBytes(int64_t bytes, ByteUnits units) {
  static const char *const decimal[] = {"B", "KB", "MB", "GB", "TB"};
  static const char *const binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  bool isBinary = units == ByteUnits::Binary;
  double step = isBinary ? 1024 : 1000;
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (std::abs(value) >= step && unit + 1 < std::size(decimal)) {
    value /= step;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} B", bytes).str();
  return llvm::formatv("{0:f2} {1}", value,
                       isBinary ? binary[unit] : decimal[unit])
      .str();
}

ho::ByteUnits ho::getChosenUnits(int64_t bytes) {
  // Whether the bytes are a whole number of the largest binary unit they
  // are a whole number of, and not of the decimal unit of that rank.
  bool binary = false;
  int64_t binaryUnit = 1, decimalUnit = 1;
  for (int rank = 0; rank < 4; ++rank) {
    binaryUnit *= 1024;
    decimalUnit *= 1000;
    if (bytes < binaryUnit || bytes % binaryUnit != 0)
      break;
    binary = bytes % decimalUnit != 0;
  }
  return binary ? ByteUnits::Binary : ByteUnits::Decimal;
}

ho::ByteUnits ho::getBudgetUnits(llvm::StringRef text, int64_t bytes) {
  text = text.trim();
  if (text.empty())
    return ByteUnits::Decimal;
  if (text.ends_with_insensitive("ib"))
    return ByteUnits::Binary;
  // A fraction or a percentage of the device: no unit was written.
  if (!llvm::isAlpha(text.back()))
    return getChosenUnits(bytes);
  return ByteUnits::Decimal;
}
