# -*- Python -*-
# lit configuration for the HyperOffload regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "HYPEROFFLOAD"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lib", "Inputs", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hyperoffload_obj_root, "test")

# Every capture in a CHECK-LABEL block is scoped to that block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(
    config.hyperoffload_src_root, "examples")))
config.substitutions.append(("%utils", os.path.join(
    config.hyperoffload_src_root, "utils")))

# The stock mlir-opt, with libHyperOffloadPlugin.so to load into it.
# `REQUIRES: mlir-opt` tests are UNSUPPORTED where it is not installed.
if config.stock_mlir_opt and os.path.exists(config.stock_mlir_opt):
    config.available_features.add("mlir-opt")
# Tests of several minutes say `REQUIRES: long-tests`; `make check-results`
# runs them with `--param long_tests=1`, `make check` does not.
if lit_config.params.get("long_tests"):
    config.available_features.add("long-tests")

# In a sanitizer build, a wrapper that preloads the sanitizer runtime
# (test/CMakeLists.txt).
config.substitutions.append(("%mlir_opt", config.stock_mlir_opt))
config.substitutions.append(("%hyperoffload_plugin", config.hyperoffload_plugin))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.hyperoffload_tools_dir, config.llvm_tools_dir]
tools = [
    # Not inside a pass pipeline: `builtin.module(hyperoffload{...})` names
    # the pipeline, not the tool.
    ToolSubst("hyperoffload", pre=r".-^/\<(,", post="-.{"),
    "hyperoffload-opt",
    "not",
    "count",
    "split-file",
    ToolSubst("%python", config.python_executable, unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
