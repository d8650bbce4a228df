//===- PlannableChecks.h - Diagnostics for what a plan cannot handle -----===//
//
// The rules a function must obey before and after planning, as located
// diagnostics. ho-check-plannable and ho-plan-offload check them before any
// planning, so that an input the planner cannot take fails at once, at the
// op that breaks the rule; ho-verify-schedule checks them on the result.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_TRANSFORMS_PLANNABLECHECKS_H
#define HYPEROFFLOAD_LIB_TRANSFORMS_PLANNABLECHECKS_H

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::ho {

/// A function body of one block: the planner, the simulator and the
/// lowering work on straight-line code whose loops and branches are ops with
/// regions (scf), not on a control-flow graph.
LogicalResult checkSingleBlock(FunctionOpInterface function);

/// Every tensor of the body that needs a buffer has a static size (a
/// dynamic-typed view of a sized buffer is fine) of at most 2^59 bytes, and
/// all of them together stay within that too.
LogicalResult checkSizedTensors(FunctionOpInterface function,
                                const BufferLiveness &liveness);

/// No value is read after an op overwrote its buffer in place.
LogicalResult checkStaleReads(Block &body, const BufferLiveness &liveness);

/// Reports every op that places its buffer over the offsets of a buffer
/// whose store it does not wait for (findReusesUnderStore).
LogicalResult checkReusesUnderStore(Block &body,
                                    const BufferLiveness &liveness);

/// No buffer is overwritten in place between an offload of it and the
/// offload's `ho.wait_offload`.
LogicalResult checkWritesUnderStore(Block &body,
                                    const BufferLiveness &liveness);

/// Every prefetch is awaited, or its future returned to the caller.
LogicalResult checkUnawaitedPrefetches(Block &body);

/// No future crosses a call: none is an argument of `function`, and none
/// is passed to a call. A transfer's handle lives in the function that
/// issued it (returning one to the caller is how a caller awaits it).
LogicalResult checkFuturesStayLocal(FunctionOpInterface function);

/// Every rule above, each violation reported. `granularity` is the device's
/// allocation granularity.
LogicalResult checkPlannable(FunctionOpInterface function, int64_t granularity);

} // namespace mlir::ho

#endif // HYPEROFFLOAD_LIB_TRANSFORMS_PLANNABLECHECKS_H
