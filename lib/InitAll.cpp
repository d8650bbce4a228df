//===- InitAll.cpp - Register everything HyperOffload defines -------------===//

#include "hyperoffload/InitAll.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::ho::registerHyperOffloadDialects(DialectRegistry &registry) {
  registry.insert<HODialect>();
}
