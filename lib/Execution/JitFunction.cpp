//===- JitFunction.cpp - A function lowered to LLVM and JIT-compiled ------===//
//
// The lowering is the standard one: one-shot bufferization with buffers of
// identity layout at the function boundary, the deallocation pipeline,
// linalg to loops, and the conversions to the LLVM dialect. The compiled
// function is called through ExecutionEngine's packed wrapper, whose
// arguments are the LLVM function's: a memref is its descriptor's fields
// (allocated and aligned pointers, offset, sizes, strides), each 8 bytes on
// the 64-bit hosts this runs on, and the results come back as one struct
// of them.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Execution/JitFunction.h"

#include "KernelOutlining.h"
#include "RuntimeBindings.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Dialect/HO/HOTypes.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Runtime/RuntimeSymbols.h"
#include "hyperoffload/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <cstring>
#include <set>

using namespace mlir;
using namespace mlir::ho;

void mlir::ho::registerExecutionDialects(DialectRegistry &registry) {
  registry
      .insert<arith::ArithDialect, bufferization::BufferizationDialect,
              cf::ControlFlowDialect, func::FuncDialect, LLVM::LLVMDialect,
              linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
              scf::SCFDialect, tensor::TensorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

/// Fails with an error at the first op that cannot run: one no lowering
/// to LLVM gives a meaning to.
static LogicalResult checkRunnable(func::FuncOp function) {
  WalkResult walk = function.walk([&](Operation *op) {
    if (isa<HODialect>(op->getDialect())) {
      op->emitError() << "cannot run: '" << op->getName()
                      << "' in a function without a static memory plan "
                         "(ho.arena_size); place the schedule first "
                         "(ho-assign-offsets)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Removes the `ho.*` attributes of `function`'s arguments, results and
/// ops, which mean nothing once the plan is lowered and placed: LLVM's
/// translation warns of each argument's, and an op's `ho.offsets` (one
/// entry per result) no longer verifies once bufferization leaves the op
/// without results.
static void stripPlanAttributes(func::FuncOp function) {
  auto others = [](DictionaryAttr attrs) {
    SmallVector<NamedAttribute> kept;
    if (attrs)
      for (NamedAttribute attr : attrs)
        if (!attr.getName().strref().starts_with("ho."))
          kept.push_back(attr);
    return kept;
  };
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    function.setArgAttrs(i, others(function.getArgAttrDict(i)));
  for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
    function.setResultAttrs(i, others(function.getResultAttrDict(i)));
  function.getFunctionBody().walk([&](Operation *op) {
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (attr.getName().strref().starts_with("ho."))
        op->removeDiscardableAttr(attr.getName());
  });
}

/// Makes the arena the function's last argument, in place of the result of
/// `ho_arena_base()`: buffer deallocation takes a call's result for memory
/// the caller owns, and frees it once no result aliases it (a plan whose
/// results all live in the pool), while an argument it never frees. `run`
/// passes the runtime's arena there.
static LogicalResult passArenaAsArgument(func::FuncOp function) {
  func::CallOp arenaCall;
  function.walk([&](func::CallOp call) {
    if (call.getCallee() == kArenaBase)
      arenaCall = call;
  });
  if (!arenaCall)
    return success();
  Type type = arenaCall.getResult(0).getType();
  unsigned index = function.getNumArguments();
  if (failed(function.insertArgument(index, type, {}, function.getLoc())))
    return function.emitError() << "cannot pass the arena as an argument";
  arenaCall.getResult(0).replaceAllUsesWith(function.getArgument(index));
  arenaCall.erase();
  return success();
}

/// The bytes a caller passes for an argument made from `value`, a tensor
/// of `bytes` bytes, in the layout the compiled code reads: every element,
/// densely packed.
static FailureOr<std::vector<int8_t>> getConstantBytes(func::FuncOp function,
                                                       unsigned index,
                                                       Attribute value,
                                                       int64_t bytes) {
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value);
  int64_t count = dense ? dense.getNumElements() : 0;
  int64_t elementBytes = count > 0 ? bytes / count : 0;
  ArrayRef<char> raw = dense ? dense.getRawData() : ArrayRef<char>();
  int64_t stored = dense && dense.isSplat() ? elementBytes : bytes;
  if (!dense || count == 0 || elementBytes * count != bytes ||
      static_cast<int64_t>(raw.size()) != stored)
    return function.emitError()
           << "cannot run: argument " << index << " is the constant " << value
           << ", and only dense constants of whole-byte elements can be "
              "passed";
  std::vector<int8_t> result(bytes);
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(result.data() + i * elementBytes,
                raw.data() + (dense.isSplat() ? 0 : i * elementBytes),
                elementBytes);
  return result;
}

/// The slots of a function's argument or result types, as the plan left
/// them.
static FailureOr<SmallVector<ValueSlot>>
collectSlots(func::FuncOp function, TypeRange types, bool arguments) {
  SmallVector<ValueSlot> slots;
  for (auto [index, type] : llvm::enumerate(types)) {
    ValueSlot slot;
    if (auto remote = dyn_cast<RemoteType>(type)) {
      slot.kind = ValueSlot::Kind::Remote;
      slot.tier = static_cast<int32_t>(remote.getTier());
      type = remote.getTensorType();
    }
    slot.type = dyn_cast<RankedTensorType>(type);
    std::optional<int64_t> bytes = slot.type && slot.type.hasStaticShape()
                                       ? getTensorSizeInBytes(slot.type)
                                       : std::nullopt;
    if (!bytes)
      return function.emitError()
             << "cannot run: " << (arguments ? "argument " : "result ") << index
             << " has type " << type
             << "; only tensors of static shape can be passed";
    slot.bytes = *bytes;
    if (arguments && slot.kind == ValueSlot::Kind::Remote)
      if (auto original = function.getArgAttrOfType<IntegerAttr>(
              index, kTierCopyOfAttrName))
        slot.copyOf = original.getInt();
    if (arguments)
      if (Attribute value = function.getArgAttr(index, kConstantAttrName)) {
        FailureOr<std::vector<int8_t>> bytes =
            getConstantBytes(function, index, value, slot.bytes);
        if (failed(bytes))
          return failure();
        slot.constant = std::move(*bytes);
      }
    if (arguments && slot.kind == ValueSlot::Kind::Buffer)
      if (auto offset = function.getArgAttrOfType<IntegerAttr>(
              index, kArgOffsetAttrName)) {
        slot.kind = ValueSlot::Kind::Arena;
        slot.offset = offset.getInt();
      }
    slots.push_back(slot);
  }
  return slots;
}

/// The cache the lowered loops are tiled for.
static constexpr uint64_t kTiledCacheBytes = 32 * 1024;

/// The lowering after the plan's own, up to memrefs: bufferize and free.
static void buildBufferization(OpPassManager &pm) {
  pm.addPass(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // The clones deallocation inserts (a result that is an argument updated
  // in place, such as a KV cache) become allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// The rest of the lowering: loops, and the conversion to LLVM.
static void buildLLVMLowering(OpPassManager &pm) {
  // Loops tiled for a 32 KiB L1 data cache: untiled, a matmul's speed falls
  // by an order of magnitude once its operands leave the caches, so no one
  // FLOP/s figure (`hyperoffload calibrate`) could price programs of
  // different sizes; tiled, it varies by about 25% from 128^3 to 1024^3.
  pm.addPass(createConvertLinalgToAffineLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      affine::createLoopTilingPass(kTiledCacheBytes));
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

FailureOr<std::unique_ptr<JitFunction>>
JitFunction::compile(ModuleOp module, StringRef name, const Options &options) {
  auto function = module.lookupSymbol<func::FuncOp>(name);
  if (!function || function.isDeclaration())
    return module.emitError()
           << "cannot run: no function @" << name << " with a body";
  std::unique_ptr<JitFunction> jit(new JitFunction());
  jit->name = name.str();
  FunctionType type = function.getFunctionType();
  FailureOr<SmallVector<ValueSlot>> arguments =
      collectSlots(function, type.getInputs(), /*arguments=*/true);
  if (failed(arguments))
    return failure();
  FailureOr<SmallVector<ValueSlot>> results =
      collectSlots(function, type.getResults(), /*arguments=*/false);
  if (failed(results))
    return failure();
  jit->arguments = std::move(*arguments);
  jit->results = std::move(*results);
  if (auto arena = function->getAttrOfType<IntegerAttr>(ho::kArenaSizeAttrName))
    jit->arenaBytes = std::max<int64_t>(1, arena.getInt());

  MLIRContext *context = module.getContext();
  if (jit->isPlanned()) {
    PassManager pm(context);
    pm.addPass(createLowerToRuntime());
    PlaceInArenaOptions place;
    place.checkIntegrity = options.checkIntegrity;
    pm.addPass(createPlaceInArena(place));
    if (failed(pm.run(module)))
      return failure();
    if (options.editLowered)
      options.editLowered(module);
    if (failed(passArenaAsArgument(function)))
      return failure();
    jit->takesArena = function.getNumArguments() > jit->arguments.size();
    if (auto sites = function->getAttrOfType<ArrayAttr>("ho.integrity_sites"))
      for (Attribute site : sites)
        jit->sites.push_back(cast<StringAttr>(site).str());
  }
  // Abstract compute runs as synthetic kernels (ho-synthesize-kernels),
  // after the plan's lowering has placed its results.
  PassManager synthesize(context);
  SynthesizeKernelsOptions kernels;
  kernels.timeScale = options.computeTimeScale;
  kernels.hw = options.hw;
  kernels.hwOverrides.assign(options.hwOverrides.begin(),
                             options.hwOverrides.end());
  synthesize.addPass(createSynthesizeKernels(kernels));
  if (failed(synthesize.run(module)) || failed(checkRunnable(function)))
    return failure();
  stripPlanAttributes(function);
  PassManager bufferization(context);
  buildBufferization(bufferization);
  if (failed(bufferization.run(module)))
    return failure();
  // Each op's buffers are distinct to its loops, as they are to a kernel
  // on a device, though the plan's lie in one arena.
  outlineKernels(module);
  PassManager lowering(context);
  buildLLVMLowering(lowering);
  if (failed(lowering.run(module)))
    return failure();
  markNoAliasKernelArguments(module);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  auto optimize = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  // memref.copy of strided buffers calls `memrefCopy` of MLIR's C runner
  // utilities.
  SmallVector<StringRef, 1> libraries = {HO_MLIR_C_RUNNER_UTILS};
  engineOptions.sharedLibPaths = libraries;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return module.emitError() << "cannot JIT-compile @" << name << ": "
                              << llvm::toString(engine.takeError());
  jit->engine = std::move(*engine);
  jit->engine->registerSymbols(getRuntimeSymbols);
  jit->engine->initialize();
  return jit;
}

JitFunction::~JitFunction() = default;

namespace {
/// A memref descriptor of identity layout as 8-byte words: allocated and
/// aligned pointers, offset, sizes, strides.
SmallVector<int64_t> makeDescriptor(void *data, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> words = {reinterpret_cast<int64_t>(data),
                                reinterpret_cast<int64_t>(data), 0};
  words.append(shape.begin(), shape.end());
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  words.append(strides.begin(), strides.end());
  return words;
}

unsigned getWordCount(const ValueSlot &slot) {
  return slot.kind == ValueSlot::Kind::Remote ? 1 : 3 + 2 * slot.type.getRank();
}

/// Reads a result memref's elements, row major, whatever its strides.
std::vector<int8_t> readDescriptor(const int64_t *words,
                                   const ValueSlot &slot) {
  int64_t rank = slot.type.getRank();
  int64_t elementBytes =
      slot.bytes / std::max<int64_t>(1, slot.type.getNumElements());
  const int8_t *aligned = reinterpret_cast<const int8_t *>(words[1]);
  int64_t offset = words[2];
  ArrayRef<int64_t> sizes(words + 3, rank), strides(words + 3 + rank, rank);
  std::vector<int8_t> bytes(slot.bytes);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t element = 0, e = slot.type.getNumElements(); element < e;
       ++element) {
    int64_t at = offset;
    for (int64_t dim = 0; dim < rank; ++dim)
      at += index[dim] * strides[dim];
    std::memcpy(bytes.data() + element * elementBytes,
                aligned + at * elementBytes, elementBytes);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      if (++index[dim] < sizes[dim])
        break;
      index[dim] = 0;
    }
  }
  return bytes;
}

/// Host memory of 64-byte alignment, as MLIR's allocations have.
struct AlignedBuffer {
  explicit AlignedBuffer(int64_t bytes)
      : data(std::aligned_alloc(64, (std::max<int64_t>(bytes, 1) + 63) / 64 *
                                        64)) {}
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  void *data;
};
} // namespace

llvm::Expected<std::vector<std::vector<int8_t>>>
JitFunction::run(ArrayRef<std::vector<int8_t>> inputs,
                 ThreadedRuntime *runtime) const {
  assert(inputs.size() == arguments.size() && "one input per argument");
  assert((!isPlanned() || runtime) && "a planned function needs a runtime");
  std::vector<std::unique_ptr<AlignedBuffer>> buffers;
  std::vector<SmallVector<int64_t>> argumentWords;
  for (auto [index, slot] : llvm::enumerate(arguments)) {
    const std::vector<int8_t> &input = inputs[index];
    assert(static_cast<int64_t>(input.size()) == slot.bytes);
    if (slot.kind == ValueSlot::Kind::Remote) {
      argumentWords.push_back(
          {runtime->createCopy(slot.tier, input, static_cast<int64_t>(index))});
      continue;
    }
    if (slot.kind == ValueSlot::Kind::Arena) {
      std::memcpy(runtime->getArena() + slot.offset, input.data(), slot.bytes);
      runtime->recordInput(slot.offset, slot.bytes,
                           static_cast<int64_t>(index));
    }
    buffers.push_back(std::make_unique<AlignedBuffer>(slot.bytes));
    std::memcpy(buffers.back()->data, input.data(), slot.bytes);
    argumentWords.push_back(
        makeDescriptor(buffers.back()->data, slot.type.getShape()));
  }
  if (takesArena)
    argumentWords.push_back(makeDescriptor(runtime->getArena(), {arenaBytes}));
  SmallVector<void *> packed;
  for (SmallVector<int64_t> &words : argumentWords)
    for (int64_t &word : words)
      packed.push_back(&word);
  unsigned resultWords = 0;
  for (const ValueSlot &slot : results)
    resultWords += getWordCount(slot);
  SmallVector<int64_t> resultStorage(std::max(1u, resultWords), 0);
  if (!results.empty())
    packed.push_back(resultStorage.data());

  {
    RuntimeBinding binding(runtime, sites);
    if (llvm::Error error = engine->invokePacked(name, packed))
      return std::move(error);
    if (runtime)
      runtime->synchronize();
  }

  std::vector<std::vector<int8_t>> outputs;
  // Results the function allocated are the caller's to free; views of the
  // arena and the caller's own buffers are not.
  std::set<int64_t> toFree;
  const int64_t *words = resultStorage.data();
  for (const ValueSlot &slot : results) {
    if (slot.kind == ValueSlot::Kind::Remote) {
      outputs.push_back(runtime->readCopy(words[0]));
    } else {
      outputs.push_back(readDescriptor(words, slot));
      auto *allocated = reinterpret_cast<int8_t *>(words[0]);
      bool inArena = runtime && allocated >= runtime->getArena() &&
                     allocated < runtime->getArena() + arenaBytes;
      bool isInput = llvm::any_of(buffers, [&](const auto &buffer) {
        return buffer->data == allocated;
      });
      if (!inArena && !isInput)
        toFree.insert(words[0]);
    }
    words += getWordCount(slot);
  }
  for (int64_t allocated : toFree)
    std::free(reinterpret_cast<void *>(allocated));
  return outputs;
}
