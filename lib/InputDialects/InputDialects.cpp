//===- InputDialects.cpp - Every dialect an input file may use ------------===//

#include "hyperoffload/InputDialects.h"

#include "hyperoffload/InitAll.h"
#include "hyperoffload/Interfaces/CostExternalModels.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::ho::registerInputDialects(DialectRegistry &registry) {
  registerHyperOffloadDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerCostExternalModels(registry);
}
