// Bad hardware files and bad options: each error says what is wrong and where.
// RUN: not hyperoffload-opt %s --ho-report="hw=no-such-preset" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRESET
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/does-not-exist.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/not-json.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/missing-field.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/wrong-type.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/negative-bandwidth.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/unknown-tier.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIER
// RUN: not hyperoffload-opt %s --ho-report="hw-set=links.pool.bandwidth=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIELD
// RUN: not hyperoffload-opt %s --ho-report="hw-set=device.hbm_bandwidth_gbps=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not hyperoffload-opt %s --ho-report="hw-set=device.hbm_bandwidth_gbps=fast" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not hyperoffload-opt %s --ho-report="budget=2x" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not hyperoffload-opt %s --ho-report="budget=1.5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not hyperoffload-opt %s --ho-report="allocator=best" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALLOCATOR
// RUN: not hyperoffload-opt %s --ho-report="mode=lazy" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not hyperoffload-opt %s --ho-annotate-cost="hw=no-such-preset" 2>&1 | FileCheck %s --check-prefix=PRESET
// RUN: not hyperoffload-opt %s --ho-explain-cost="hw=no-such-preset" 2>&1 | FileCheck %s --check-prefix=PRESET

// PRESET: error: {{.*}}.mlir: invalid hw option: unknown target preset 'no-such-preset'; valid presets are: ascend910c-supernode, ascend910c-host, h200-pcie5, gh200-c2c, ascend910c-supernode-shared, gh200-c2c-measured
// NOFILE: error: {{.*}}.mlir: invalid hw option: cannot read target file '{{.*}}does-not-exist.json': No such file or directory
// SYNTAX: error: {{.*}}.mlir: invalid hw option: {{.*}}not-json.json: invalid JSON at line 3, column 0
// MISSING: error: {{.*}}.mlir: invalid hw option: {{.*}}missing-field.json: device.hbm_bandwidth_gbps: missing required field (expected a positive number)
// TYPE: error: {{.*}}.mlir: invalid hw option: {{.*}}wrong-type.json: device.hbm_capacity_gib: expected a positive number, got "lots"
// NEGATIVE: error: {{.*}}.mlir: invalid hw option: {{.*}}negative-bandwidth.json: links.pool.bandwidth_to_device_gbps: expected a positive number, got -3
// TIER: error: {{.*}}.mlir: invalid hw option: {{.*}}unknown-tier.json: links.hbm: unknown memory tier; valid tiers are: pool, host, disk
// FIELD: error: {{.*}}.mlir: invalid hw-set option: override 'links.pool.bandwidth=3': unknown field 'links.pool.bandwidth'; valid fields at 'links.pool' are: bandwidth_to_device_gbps,
// ZERO: error: {{.*}}.mlir: invalid hw-set option: override 'device.hbm_bandwidth_gbps=0': {{.*}}device.hbm_bandwidth_gbps: expected a positive number, got 0
// VALUE: error: {{.*}}.mlir: invalid hw-set option: override 'device.hbm_bandwidth_gbps=fast': {{.*}}number
// BUDGET: error: {{.*}}.mlir: invalid budget option: invalid memory budget '2x': unknown unit 'x'
// FRACTION: error: {{.*}}.mlir: invalid budget option: invalid memory budget '1.5': a plain number is a fraction of the capacity and must not exceed 1
// ALLOCATOR: for the --allocator option: Cannot find option named 'best'!
// MODE: for the --mode option: Cannot find option named 'lazy'!
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
