//===- CostOpInterface.td - Per-op compute cost ------------*- tablegen -*-===//

#ifndef HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_TD
#define HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def HO_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::ho";
  let description = [{
    The work an operation does, as the inputs of a roofline model: the number
    of floating-point (or integer) operations it executes and the number of
    bytes of device memory it reads and writes.

    Both methods return `std::nullopt` when the cost cannot be known ahead of
    time, for example because an operand has a dynamic shape. Callers then
    fall back to an estimate of their own and should say so.

    The default implementations derive the cost from the sizes of the tensor
    operands and results alone: one operation per result element, and every
    operand and result read or written once. That is right for elementwise
    ops and a lower bound for everything else. `ho.compute` overrides both
    with its cost hints; upstream ops (linalg, tosa) get external models that
    override them with formulas from their iteration domains, e.g.

    ```c++
    struct MatmulCostModel
        : ho::CostOpInterface::ExternalModel<MatmulCostModel,
                                             linalg::MatmulOp> {
      std::optional<int64_t> getFlopCount(Operation *op) const;
      // getBytesAccessed() keeps the size-based default.
    };
    linalg::MatmulOp::attachInterface<MatmulCostModel>(*ctx);
    ```
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Returns the number of arithmetic operations the op executes, or
        std::nullopt when it is not known statically.
      }],
      /*retTy=*/"std::optional<int64_t>",
      /*methodName=*/"getFlopCount",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::ho::detail::getDefaultFlopCount($_op);
      }]>,
    InterfaceMethod<
      /*desc=*/[{
        Returns the number of bytes of device memory the op reads and writes,
        or std::nullopt when it is not known statically.
      }],
      /*retTy=*/"std::optional<int64_t>",
      /*methodName=*/"getBytesAccessed",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::ho::detail::getDefaultBytesAccessed($_op);
      }]>
  ];
}

#endif // HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_TD
