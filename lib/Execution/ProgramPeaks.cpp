//===- ProgramPeaks.cpp - A program's kernels' peak FLOP/s ----------------===//

#include "ProgramPeaks.h"

#include "KernelTiming.h"

#include "hyperoffload/Analysis/OpCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::ho;

namespace {
/// One kernel of a program's compute-bound ops: the op alone in a function,
/// and how many of the program's ops it stands for.
struct ProgramKernel {
  OwningOpRef<ModuleOp> module;
  /// The first of the program's ops it stands for, for messages.
  Operation *first = nullptr;
  double DeviceModel::*peakField = nullptr;
  int64_t flops = 0;
  int64_t count = 0;
};

/// What the kernels of one element-type class achieved together.
struct PeakMeasurement {
  double DeviceModel::*peakField = nullptr;
  int64_t ops = 0;
  unsigned kernels = 0;
  double flops = 0;
  double seconds = 0;
};
} // namespace

static llvm::StringRef getPeakName(double DeviceModel::*peakField) {
  if (peakField == &DeviceModel::peakFlopsBF16)
    return "bf16";
  if (peakField == &DeviceModel::peakFlopsFP8)
    return "fp8";
  return "f32";
}

/// `op` alone in a function @kernel: an argument for each tensor operand
/// (a value read twice is two arguments, so that ops of one signature
/// print alike) and for each tensor its regions use from above; constants
/// it uses are cloned in. Null when it uses or makes anything else.
static OwningOpRef<ModuleOp> extractKernel(Operation *op) {
  auto isStaticTensor = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape();
  };
  auto isConstant = [](Value value) {
    Operation *producer = value.getDefiningOp();
    return producer && producer->hasTrait<OpTrait::ConstantLike>();
  };
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  SmallVector<Value> arguments;
  SetVector<Operation *> constants;
  auto addUse = [&](Value value) {
    if (isConstant(value)) {
      constants.insert(value.getDefiningOp());
      return true;
    }
    arguments.push_back(value);
    return isStaticTensor(value.getType());
  };
  if (!llvm::all_of(op->getOperands(), addUse) ||
      !llvm::all_of(captured, addUse) ||
      !llvm::all_of(op->getResultTypes(), isStaticTensor))
    return nullptr;

  Location loc = op->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto kernel = func::FuncOp::create(
      builder, loc, "kernel",
      builder.getFunctionType(ValueRange(arguments).getTypes(),
                              op->getResultTypes()));
  Block *entry = kernel.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  // Captured values map to their arguments as the regions are cloned;
  // operands are set one by one, since one value may be two operands.
  auto argument = entry->args_begin();
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isConstant(operand) ? mapping.lookup(operand)
                                           : Value(*argument++));
  for (Value value : captured)
    if (!isConstant(value))
      mapping.map(value, *argument++);
  Operation *clone = builder.clone(*op, mapping);
  clone->setOperands(operands);
  func::ReturnOp::create(builder, loc, clone->getResults());
  return module;
}

/// The linalg ops of `program` that `target` prices at their peak FLOP/s
/// (compute-bound), one kernel per distinct op (keyed by its printed
/// form, so a program's repeated layers compile once).
static std::map<std::string, ProgramKernel>
collectComputeBoundKernels(ModuleOp program, const Target &target) {
  std::map<std::string, ProgramKernel> kernels;
  program.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    OpCost cost = estimateOpCost(op, target);
    if (cost.source != CostSource::Interface ||
        cost.computeSeconds <= cost.memorySeconds)
      return;
    OwningOpRef<ModuleOp> module = extractKernel(op);
    if (!module)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    ProgramKernel &kernel = kernels[text];
    if (!kernel.module) {
      kernel.module = std::move(module);
      kernel.first = op;
      kernel.peakField =
          DeviceModel::getPeakFlopsField(getComputeElementType(op));
      kernel.flops = cost.flops;
    }
    ++kernel.count;
  });
  return kernels;
}

llvm::Expected<std::string> ho::measureProgramPeaks(ModuleOp program,
                                                    Target &target,
                                                    unsigned repetitions) {
  SmallVector<PeakMeasurement> peaks;
  for (auto &entry : collectComputeBoundKernels(program, target)) {
    ProgramKernel &kernel = entry.second;
    llvm::Expected<CompiledKernel> compiled = compileKernel(*kernel.module);
    if (!compiled) {
      std::string where;
      llvm::raw_string_ostream os(where);
      os << "'" << kernel.first->getName() << "' at " << kernel.first->getLoc();
      return llvm::joinErrors(
          compiled.takeError(),
          llvm::createStringError("calibration: the kernel of " + where +
                                  " cannot be measured alone"));
    }
    llvm::Expected<double> seconds = timeKernel(*compiled, repetitions);
    if (!seconds)
      return seconds.takeError();
    auto *peak = llvm::find_if(peaks, [&](const PeakMeasurement &measured) {
      return measured.peakField == kernel.peakField;
    });
    if (peak == peaks.end()) {
      peaks.push_back({});
      peak = &peaks.back();
      peak->peakField = kernel.peakField;
    }
    peak->ops += kernel.count;
    peak->kernels += 1;
    peak->flops += double(kernel.count) * double(kernel.flops);
    peak->seconds += double(kernel.count) * *seconds;
  }
  if (peaks.empty())
    return std::string("none (no compute-bound linalg op)");
  auto count = [](int64_t number, llvm::StringRef noun) {
    return llvm::formatv("{0} {1}{2}", number, noun, number == 1 ? "" : "s")
        .str();
  };
  std::string summary;
  for (double DeviceModel::*field :
       {&DeviceModel::peakFlopsF32, &DeviceModel::peakFlopsBF16,
        &DeviceModel::peakFlopsFP8})
    for (const PeakMeasurement &peak : peaks) {
      if (peak.peakField != field)
        continue;
      target.device.*field = peak.flops / peak.seconds;
      summary +=
          llvm::formatv("{0}{1} from {2} in {3}", summary.empty() ? "" : ", ",
                        getPeakName(field), count(peak.ops, "op"),
                        count(peak.kernels, "kernel"))
              .str();
    }
  return summary;
}
