//===- PlannableChecks.cpp - Diagnostics for what a plan cannot handle ---===//

#include "PlannableChecks.h"

#include "hyperoffload/Analysis/ScheduleChecks.h"
#include "hyperoffload/Dialect/HO/HOTypes.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::ho;

LogicalResult ho::checkSingleBlock(FunctionOpInterface function) {
  Region &body = function.getFunctionBody();
  if (body.hasOneBlock())
    return success();
  Block &second = *std::next(body.begin());
  InFlightDiagnostic diag =
      emitError(function.getLoc())
      << "@" << function.getName() << " has " << body.getBlocks().size()
      << " blocks; the planner takes a function body of one block, with "
         "loops and branches as scf ops: run `mlir-opt --lift-cf-to-scf` first";
  diag.attachNote(second.empty() ? function.getLoc() : second.front().getLoc())
      << "the second block starts here";
  return failure();
}

LogicalResult ho::checkSizedTensors(FunctionOpInterface function,
                                    const BufferLiveness &liveness) {
  ArrayRef<Value> unsized = liveness.getUnsizedValues();
  if (unsized.empty()) {
    // Each buffer is at most 2^59 bytes; together they must stay within
    // that too, so that no sum the planner forms overflows.
    int64_t total = 0;
    for (const BufferInfo &buffer : liveness.getBuffers()) {
      total += buffer.size;
      if (total > kMaxTensorBytes)
        return function.emitError()
               << "@" << function.getName()
               << " holds more than 2^59 bytes of buffers (512 PiB): the "
                  "planner measures memory in 64-bit byte counts";
    }
    return success();
  }
  Type first = unsized.front().getType();
  InFlightDiagnostic diag = emitError(unsized.front().getLoc());
  if (isTooLargeToMeasure(first))
    diag << "a tensor of more than 2^59 bytes (" << first
         << "): the planner measures buffers in 64-bit byte counts";
  else
    diag << "a tensor of unknown size (" << first
         << "): the planner needs the bytes of every buffer; give @"
         << function.getName() << " static shapes";
  if (unsized.size() > 1)
    diag.attachNote(unsized[1].getLoc())
        << unsized.size() - 1 << " more tensors of unknown size, the next here";
  return failure();
}

LogicalResult ho::checkStaleReads(Block &body, const BufferLiveness &liveness) {
  SmallVector<StaleRead> reads = findStaleReads(body, liveness);
  for (const StaleRead &read : reads) {
    InFlightDiagnostic diag =
        read.use->getOwner()->emitError()
        << "operand #" << read.use->getOperandNumber()
        << " is read after its buffer was overwritten in place; read it "
           "before the overwrite, or give the overwriting result a buffer of "
           "its own";
    diag.attachNote(read.writer->getLoc()) << "the buffer is overwritten here";
  }
  return success(reads.empty());
}

LogicalResult ho::checkWritesUnderStore(Block &body,
                                        const BufferLiveness &liveness) {
  SmallVector<WriteUnderStore> writes = findWritesUnderStore(body, liveness);
  for (const WriteUnderStore &write : writes) {
    InFlightDiagnostic diag =
        write.writer->emitError()
        << "overwrites in place a buffer that an offload may still be "
           "copying: the tier would get a mix of old and new bytes; add a "
           "ho.wait_offload of the offload before this op, or give the "
           "result a buffer of its own";
    diag.attachNote(write.store->getLoc())
        << "the offload is issued here and not waited for before the write";
  }
  return success(writes.empty());
}

LogicalResult ho::checkReusesUnderStore(Block &body,
                                        const BufferLiveness &liveness) {
  SmallVector<ReuseUnderStore> reuses = findReusesUnderStore(body, liveness);
  for (const ReuseUnderStore &reuse : reuses) {
    InFlightDiagnostic diag =
        reuse.allocation->emitError()
        << "places its buffer over the bytes of a buffer that an offload "
           "may still be copying: on a link slower than planned the copy "
           "reads this op's data; add a ho.wait_offload of the offload "
           "before this op (ho-assign-offsets does)";
    diag.attachNote(reuse.store->getLoc())
        << "the offload is issued here and not waited for before the reuse";
  }
  return success(reuses.empty());
}

LogicalResult ho::checkUnawaitedPrefetches(Block &body) {
  SmallVector<UnawaitedPrefetch> unawaited = findUnawaitedPrefetches(body);
  for (const UnawaitedPrefetch &prefetch : unawaited) {
    InFlightDiagnostic diag =
        prefetch.prefetch->emitError()
        << "never awaited: the transfer is wasted and its buffer never "
           "released; await its future before the data is needed, or remove "
           "the prefetch";
    if (prefetch.escape)
      diag.attachNote(prefetch.escape->getLoc())
          << "the future is passed on here, which does not count as an "
             "await: only an ho.await in this function, or returning the "
             "future to the caller, completes the transfer";
  }
  return success(unawaited.empty());
}

LogicalResult ho::checkFuturesStayLocal(FunctionOpInterface function) {
  bool valid = true;
  for (BlockArgument argument : function.getArguments())
    if (isa<FutureType>(argument.getType())) {
      emitError(argument.getLoc())
          << "argument #" << argument.getArgNumber()
          << " is a future: a transfer's handle lives in the function that "
             "issued it; pass the !ho.remote tensor and prefetch it here";
      valid = false;
    }
  function.walk([&](CallOpInterface call) {
    for (OpOperand &operand : call->getOpOperands())
      if (isa<FutureType>(operand.get().getType())) {
        call->emitError() << "passes a future (operand #"
                          << operand.getOperandNumber()
                          << ") to a call: a transfer's handle lives in the "
                             "function that issued it; await it first";
        valid = false;
      }
  });
  return success(valid);
}

LogicalResult ho::checkPlannable(FunctionOpInterface function,
                                 int64_t granularity) {
  if (failed(checkSingleBlock(function)))
    return failure();
  Block &body = function.getFunctionBody().front();
  BufferLiveness liveness(body, granularity);
  bool valid = succeeded(checkFuturesStayLocal(function));
  valid &= succeeded(checkSizedTensors(function, liveness));
  valid &= succeeded(checkStaleReads(body, liveness));
  valid &= succeeded(checkWritesUnderStore(body, liveness));
  valid &= succeeded(checkUnawaitedPrefetches(body));
  return success(valid);
}
