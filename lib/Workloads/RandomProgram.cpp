//===- RandomProgram.cpp - Random hardware and functions, seeded ---------===//

#include "hyperoffload/Workloads/RandomProgram.h"

#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

double workloads::uniformReal(RandomEngine &rng, double low, double high) {
  double unit = static_cast<double>(rng() >> 11) * 0x1p-53; // [0, 1)
  return low + (high - low) * unit;
}

/// Uniform in [low, high]; the modulo bias is irrelevant at these ranges.
int64_t workloads::uniformInt(RandomEngine &rng, int64_t low, int64_t high) {
  return low +
         static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1));
}

/// Sizes, times and bandwidths span decades: spread them evenly in log.
double workloads::logUniform(RandomEngine &rng, double low, double high) {
  return std::exp(uniformReal(rng, std::log(low), std::log(high)));
}

bool workloads::chance(RandomEngine &rng, double probability) {
  return uniformReal(rng, 0, 1) < probability;
}

//===----------------------------------------------------------------------===//
// Random hardware
//===----------------------------------------------------------------------===//

Target workloads::drawRandomTarget(RandomEngine &rng,
                                   const RandomTargetOptions &options) {
  Target target;
  target.name = "random";
  DeviceModel &device = target.device;
  device.peakFlopsF32 = logUniform(rng, 1e13, 1e15);
  device.peakFlopsBF16 = device.peakFlopsF32 * uniformInt(rng, 2, 4);
  device.peakFlopsFP8 = device.peakFlopsBF16 * 2;
  // Far above any budget drawn here: the budget is what binds.
  device.hbmCapacity = int64_t(64) << 30;
  device.hbmBandwidth = logUniform(rng, 1e12, 5e12);
  device.launchOverhead = uniformReal(rng, 0, 10e-6);
  const int64_t granularities[] = {1, 256, 512};
  device.allocationGranularity = granularities[uniformInt(rng, 0, 2)];
  device.cacheReleaseOverhead = 100e-6;
  device.collectiveBandwidth = 100e9;

  // Distinct tiers, in random order of choice.
  SmallVector<MemoryTier> tiers = {MemoryTier::pool, MemoryTier::host,
                                   MemoryTier::disk};
  for (unsigned i = tiers.size() - 1; i > 0; --i)
    std::swap(tiers[i], tiers[uniformInt(rng, 0, i)]);
  tiers.resize(uniformInt(rng, options.minTiers, options.maxTiers));
  for (MemoryTier tier : tiers) {
    LinkModel link;
    link.bandwidthToDevice = logUniform(rng, 1e9, 500e9);
    link.bandwidthFromDevice = logUniform(rng, 1e9, 500e9);
    link.latency = logUniform(rng, 0.5e-6, 100e-6);
    link.queuesPerDirection = uniformInt(rng, 1, options.maxQueues);
    link.issueOverhead = uniformReal(rng, 0, 30e-6);
    link.hbmContention = uniformReal(rng, 0, 0.2);
    link.capacity = int64_t(1024) << 30;
    if (!options.linkOverheads) {
      link.latency = 0;
      link.issueOverhead = 0;
      link.hbmContention = 0;
    }
    target.links[static_cast<unsigned>(tier)] = link;
  }
  return target;
}

//===----------------------------------------------------------------------===//
// Random functions
//===----------------------------------------------------------------------===//

namespace {

/// Builds one random function: device arguments (plain inputs, KV caches
/// appended in place and returned, weights read once or twice), then a DAG
/// of ho.compute ops whose operands favour recent values but sometimes reach
/// far back, so that some tensors sit idle across long gaps.
struct RandomFunctionBuilder {
  RandomFunctionBuilder(MLIRContext &context, RandomEngine &rng,
                        const Target &target,
                        const RandomFunctionOptions &options)
      : rng(rng), target(target), options(options), builder(&context) {}

  OwningOpRef<ModuleOp> build() {
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    unsigned numOps = uniformInt(rng, options.minOps, options.maxOps);
    addArguments(numOps);
    for (unsigned index = 0; index < numOps; ++index) {
      for (auto [cache, appendAt] : llvm::enumerate(cacheAppendAt))
        if (appendAt == index)
          addKvAppend(cache);
      addComputeOp(index);
    }
    addReturn();
    return module;
  }

private:
  /// A 2-D tensor of 4 KB to 32 MB, f32 or bf16.
  RankedTensorType randomTensorType() {
    bool bf16 = chance(rng, 0.5);
    Type element = bf16 ? Type(builder.getBF16Type()) : builder.getF32Type();
    int64_t width = bf16 ? 2 : 4;
    const int64_t columnChoices[] = {64, 128, 256, 512, 1024};
    int64_t columns = columnChoices[uniformInt(rng, 0, 4)];
    double bytes = logUniform(rng, 4e3, 32e6);
    int64_t rows = std::max<int64_t>(1, bytes / (width * columns));
    return RankedTensorType::get({rows, columns}, element);
  }

  Location nameLoc(const llvm::Twine &name) {
    return NameLoc::get(builder.getStringAttr(name));
  }

  void addArguments(unsigned numOps) {
    SmallVector<Type> types;
    SmallVector<StringRef> roles;
    auto add = [&](StringRef role) {
      types.push_back(randomTensorType());
      roles.push_back(role);
    };
    unsigned numInputs = uniformInt(rng, 1, 2);
    unsigned numCaches = uniformInt(rng, 0, 2);
    unsigned numWeights = uniformInt(rng, 0, 4);
    for (unsigned i = 0; i < numInputs; ++i)
      add("");
    for (unsigned i = 0; i < numCaches; ++i)
      add("kv_cache");
    for (unsigned i = 0; i < numWeights; ++i)
      add("weight");

    function = func::FuncOp::create(builder, nameLoc("f"), "f",
                                    builder.getFunctionType(types, {}));
    Block *body = function.addEntryBlock();
    for (auto [index, role] : llvm::enumerate(roles))
      if (!role.empty())
        function.setArgAttr(index, kRoleAttrName, builder.getStringAttr(role));
    builder.setInsertionPointToStart(body);

    // Inputs and caches are in the pool of values any op may read; a
    // cache's entry is swapped for the appended cache at its append.
    for (unsigned i = 0; i < numInputs + numCaches; ++i)
      values.push_back(function.getArgument(i));
    for (unsigned i = 0; i < numCaches; ++i) {
      cacheArgs.push_back(function.getArgument(numInputs + i));
      cacheAppendAt.push_back(uniformInt(rng, 0, numOps - 1));
    }
    // A weight is read by one or two ops, anywhere in the step.
    weightReaders.resize(numOps);
    for (unsigned i = 0; i < numWeights; ++i) {
      Value weight = function.getArgument(numInputs + numCaches + i);
      unsigned uses = uniformInt(rng, 1, 2);
      unsigned first = uniformInt(rng, 0, numOps - 1);
      weightReaders[first].push_back(weight);
      unsigned second = uniformInt(rng, 0, numOps - 1);
      if (uses == 2 && second != first)
        weightReaders[second].push_back(weight);
    }
  }

  /// Mostly one of the last few values (a chain of layers), sometimes any
  /// earlier one (a skip connection, long idle gap before its reuse).
  Value pickOperand() {
    if (chance(rng, 0.25))
      return values[uniformInt(rng, 0, values.size() - 1)];
    int64_t back = 0;
    while (back + 1 < static_cast<int64_t>(values.size()) && chance(rng, 0.5))
      ++back;
    return values[values.size() - 1 - back];
  }

  void addComputeOp(unsigned index) {
    // 1-3 distinct operands: this op's weights, then values from the pool.
    SmallVector<Value> operands(weightReaders[index]);
    unsigned count = std::max<unsigned>(operands.size(), uniformInt(rng, 1, 3));
    for (unsigned attempt = 0; operands.size() < count && attempt < 8;
         ++attempt) {
      Value operand = pickOperand();
      if (!llvm::is_contained(operands, operand))
        operands.push_back(operand);
    }
    // Microseconds to milliseconds on this device (f32 peak; bf16 ops run
    // faster).
    double seconds = logUniform(rng, 1e-6, 3e-3);
    int64_t flops = std::llround(seconds * target.device.peakFlopsF32);
    const char *kinds[] = {"matmul", "attention", "norm", "add", "gelu"};
    StringRef kind = kinds[uniformInt(rng, 0, 4)];
    auto op =
        ComputeOp::create(builder, nameLoc("op" + llvm::Twine(index)),
                          TypeRange{randomTensorType()}, kind, operands,
                          builder.getI64IntegerAttr(flops), /*bytes=*/nullptr,
                          /*tied_operands=*/nullptr);
    values.push_back(op.getResult(0));
  }

  /// The cache updated in place with a recent value, as a decode step does.
  void addKvAppend(unsigned cache) {
    Value current = cacheArgs[cache];
    Value entries = pickOperand();
    for (unsigned attempt = 0; entries == current && attempt < 8; ++attempt)
      entries = pickOperand();
    if (entries == current)
      entries = values.front(); // An input, never a cache.
    auto op = ComputeOp::create(
        builder, nameLoc("kv_append" + llvm::Twine(cache)),
        TypeRange{current.getType()}, "kv_append", ValueRange{current, entries},
        /*flops=*/nullptr, /*bytes=*/nullptr,
        builder.getDenseI64ArrayAttr({0}));
    // Later ops read the updated cache; none reads the overwritten one.
    *llvm::find(values, current) = op.getResult(0);
    appended.push_back(op.getResult(0));
  }

  /// The updated caches, the last value, and a few others.
  void addReturn() {
    SmallVector<Value> returned(appended);
    for (Value value : values) {
      bool wanted = value == values.back() || chance(rng, 0.1);
      if (wanted && !isa<BlockArgument>(value) &&
          !llvm::is_contained(returned, value))
        returned.push_back(value);
    }
    func::ReturnOp::create(builder, nameLoc("return"), returned);
    function.setType(builder.getFunctionType(function.getArgumentTypes(),
                                             ValueRange(returned).getTypes()));
  }

  RandomEngine &rng;
  const Target &target;
  RandomFunctionOptions options;
  OpBuilder builder;
  func::FuncOp function;
  /// Values an op may read, in definition order.
  SmallVector<Value> values;
  SmallVector<Value> cacheArgs;
  /// The compute op each cache is appended before.
  SmallVector<unsigned> cacheAppendAt;
  /// The weights each compute op reads.
  std::vector<SmallVector<Value>> weightReaders;
  SmallVector<Value> appended;
};
} // namespace

OwningOpRef<ModuleOp>
workloads::buildRandomFunction(MLIRContext &context, RandomEngine &rng,
                               const Target &target,
                               const RandomFunctionOptions &options) {
  return RandomFunctionBuilder(context, rng, target, options).build();
}
