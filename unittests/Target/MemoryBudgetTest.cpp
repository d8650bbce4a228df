//===- MemoryBudgetTest.cpp - Budgets in every spelling -------------------===//

#include "hyperoffload/Target/MemoryBudget.h"

#include "gtest/gtest.h"

using namespace mlir::ho;

namespace {
constexpr int64_t kCapacity = int64_t(64) << 30; // 64 GiB

int64_t parse(llvm::StringRef text) {
  return llvm::cantFail(parseMemoryBudget(text, kCapacity));
}

std::string error(llvm::StringRef text) {
  llvm::Expected<int64_t> budget = parseMemoryBudget(text, kCapacity);
  EXPECT_FALSE(static_cast<bool>(budget)) << text.str();
  return budget ? std::string() : llvm::toString(budget.takeError());
}

TEST(MemoryBudgetTest, Spellings) {
  EXPECT_EQ(parse(""), kCapacity);
  EXPECT_EQ(parse("48GiB"), int64_t(48) << 30);
  EXPECT_EQ(parse("500MB"), 500000000);
  EXPECT_EQ(parse("4096B"), 4096);
  EXPECT_EQ(parse(" 1.5 KB "), 1500);
  EXPECT_EQ(parse("0.75"), kCapacity / 4 * 3);
  EXPECT_EQ(parse("75%"), kCapacity / 4 * 3);
  EXPECT_EQ(parse("1"), kCapacity);
}

TEST(MemoryBudgetTest, BadBudgetsSayWhy) {
  EXPECT_EQ(error("2x"),
            "invalid memory budget '2x': unknown unit 'x': the units are B, "
            "KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers "
            "of 1024), in that case (expected bytes with a unit such as 48GiB "
            "or 500MB, a fraction of the capacity such as 0.75, or a "
            "percentage such as 75%)");
  // Units are case-sensitive; a unit in another case, or without its B,
  // gets the one meant.
  EXPECT_NE(error("44gb").find("; did you mean 'GB'?"), std::string::npos);
  EXPECT_NE(error("44G").find("; did you mean 'GB'?"), std::string::npos);
  EXPECT_NE(error("4gib").find("; did you mean 'GiB'?"), std::string::npos);
  EXPECT_NE(error("1.5").find("must not exceed 1"), std::string::npos);
  EXPECT_NE(error("120%").find("must not exceed 100%"), std::string::npos);
  EXPECT_NE(error("-3GB").find("must be positive"), std::string::npos);
  EXPECT_NE(error("GB").find("not a number"), std::string::npos);
  EXPECT_NE(error("0.5B").find("less than one byte"), std::string::npos);
  // Past int64, or close enough that sums would overflow.
  for (llvm::StringRef huge :
       {"9223372036854775807B", "1e19B", "600000TB", "1e300TB"})
    EXPECT_NE(error(huge).find("more than 2^59 bytes"), std::string::npos)
        << huge.str();
  EXPECT_EQ(parse("512TiB"), int64_t(512) << 40);
}

TEST(MemoryBudgetTest, FormatsBytesForPeople) {
  EXPECT_EQ(formatBytes(999), "999 B");
  EXPECT_EQ(formatBytes(1500), "1.50 KB");
  EXPECT_EQ(formatBytes(61930000000), "61.93 GB");
}

TEST(MemoryBudgetTest, FormatsBinaryUnits) {
  EXPECT_EQ(formatBytes(int64_t(48) << 30, ByteUnits::Binary), "48.00 GiB");
  EXPECT_EQ(formatBytes(64 << 10, ByteUnits::Binary), "64.00 KiB");
  EXPECT_EQ(formatBytes(int64_t(1536) << 20, ByteUnits::Binary), "1.50 GiB");
  EXPECT_EQ(formatBytes(1000, ByteUnits::Binary), "1000 B");
}

TEST(MemoryBudgetTest, ChosenSizesKeepTheUnitsTheyWereWrittenIn) {
  // Binary where the size is a whole number of binary units only: 48 GiB,
  // 75% of a 64 GiB device, 64 KiB blocks, 125 MiB.
  EXPECT_EQ(getChosenUnits(int64_t(48) << 30), ByteUnits::Binary);
  EXPECT_EQ(getChosenUnits((int64_t(64) << 30) / 4 * 3), ByteUnits::Binary);
  EXPECT_EQ(getChosenUnits(64 << 10), ByteUnits::Binary);
  EXPECT_EQ(getChosenUnits(int64_t(125) << 20), ByteUnits::Binary);
  // Decimal where it is a whole number of decimal units too, or of no
  // binary unit.
  EXPECT_EQ(getChosenUnits(44000000000), ByteUnits::Decimal);
  EXPECT_EQ(getChosenUnits(5000000), ByteUnits::Decimal);
  EXPECT_EQ(getChosenUnits(1024000), ByteUnits::Decimal);
  EXPECT_EQ(getChosenUnits(999), ByteUnits::Decimal);
  EXPECT_EQ(getChosenUnits(0), ByteUnits::Decimal);
}

TEST(MemoryBudgetTest, ReportsUseTheUnitsOfTheBudgetAsWritten) {
  int64_t gib48 = int64_t(48) << 30;
  EXPECT_EQ(getBudgetUnits("48GiB", gib48), ByteUnits::Binary);
  EXPECT_EQ(getBudgetUnits("64 kib", 64 << 10), ByteUnits::Binary);
  EXPECT_EQ(getBudgetUnits("44GB", 44000000000), ByteUnits::Decimal);
  // A share of a device of 64 GiB comes to binary units, of 80 GB not.
  EXPECT_EQ(getBudgetUnits("75%", gib48), ByteUnits::Binary);
  EXPECT_EQ(getBudgetUnits("0.5", 40000000000), ByteUnits::Decimal);
  // No budget written: the default, decimal.
  EXPECT_EQ(getBudgetUnits("", gib48), ByteUnits::Decimal);
}
} // namespace
