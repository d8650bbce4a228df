//===- GapClassesTest.cpp - Gap candidates that time alike ----------------===//

#include "GapClasses.h"
#include "HandWrittenBody.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

// Three experts of one size read by one op are one class; an expert of
// another size, a weight read at other points and an activation are each
// a class of their own. Taking members leaves the others, in order.
TEST(GapClassesTest, OnlyGapsThatTimeAlikeShareAClass) {
  HandWrittenBody setup(R"mlir(
    func.func @f(%e0: tensor<1024xf32>, %e1: tensor<1024xf32>,
                 %e2: tensor<1024xf32>, %big: tensor<2048xf32>,
                 %w: tensor<1024xf32>, %x: tensor<1024xf32>) -> tensor<1024xf32> {
      %a = ho.compute "a"(%x, %w) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      %b = ho.compute "b"(%a) : (tensor<1024xf32>) -> tensor<1024xf32>
      %c = ho.compute "c"(%b) : (tensor<1024xf32>) -> tensor<1024xf32>
      %d = ho.compute "d"(%c, %e0, %e1, %e2, %big) : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<2048xf32>) -> tensor<1024xf32>
      %e = ho.compute "e"(%d, %a, %w) : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      return %e : tensor<1024xf32>
    })mlir");
  ASSERT_TRUE(setup.isValid());
  Block &body = setup.getBody();
  PlanningContext &planning = setup.getPlanning();
  std::vector<GapCandidate> candidates = planning.enumerateGaps();
  GapClasses classes(planning, candidates);

  auto classOf = [&](Value value, unsigned lastUse) {
    BufferId id = planning.getLiveness().lookup(value)->id;
    for (auto [index, gap] : llvm::enumerate(candidates))
      if (gap.buffer == id && gap.lastUse == lastUse)
        return classes.getClass(index);
    ADD_FAILURE() << "no gap after point " << lastUse;
    return ~0u;
  };
  // Points: entry 0, ops a-e at 1-5.
  unsigned experts = classOf(body.getArgument(0), 0);
  EXPECT_EQ(classOf(body.getArgument(1), 0), experts);
  EXPECT_EQ(classOf(body.getArgument(2), 0), experts);
  EXPECT_NE(classOf(body.getArgument(3), 0), experts);
  unsigned weightFirst = classOf(body.getArgument(4), 0);
  unsigned weightBetween = classOf(body.getArgument(4), 1);
  unsigned activation = classOf(body.front().getResult(0), 2);
  EXPECT_NE(weightFirst, experts);
  EXPECT_NE(weightBetween, weightFirst);
  EXPECT_NE(activation, weightBetween);

  ArrayRef<size_t> members = classes.getUntaken(experts);
  ASSERT_EQ(members.size(), 3u);
  size_t first = members[0], second = members[1], third = members[2];
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  classes.take(second);
  EXPECT_EQ(classes.getUntaken(experts), ArrayRef<size_t>({first, third}));
  classes.take(first);
  classes.take(third);
  EXPECT_TRUE(classes.isExhausted(experts));
  EXPECT_FALSE(classes.isExhausted(weightFirst));
}
