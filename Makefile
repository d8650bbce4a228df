# Thin wrapper over CMake, Ninja, lit and ctest; see README.md for the plain
# commands. Every target installs missing Debian packages first.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
endif

.PHONY: all deps configure build demo check check-results check-sanitize fuzz bench results format docs clean

all: build

deps:
	@utils/install-deps.sh

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || \
	  cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: configure
	@cmake --build $(BUILD_DIR)

demo: build
	@$(BUILD_DIR)/bin/hyperoffload

check: build
	@utils/run-tests.sh $(BUILD_DIR)

# The long check: every recorded answer of docs/Results.json rerun, the
# lit tests of several minutes and the documented commands marked slow;
# about an hour on two cores.
check-results: build
	@cmake --build $(BUILD_DIR) --target check-hyperoffload-long
	@utils/results.py $(BUILD_DIR) --check --full
	@utils/check-docs.py $(BUILD_DIR) --full

# The whole suite in an AddressSanitizer + UndefinedBehaviorSanitizer build
# with clang, in a build directory of its own; see docs/Testing.md. The
# Results.md and documented-command checks are left out: they check
# documents, not memory (and a sanitized plugin does not load into the
# stock mlir-opt).
SANITIZE_DIR ?= build-sanitize
SANITIZE_ENV := ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check-sanitize: deps
	@utils/install-deps.sh --clang
	@test -f $(SANITIZE_DIR)/build.ninja || \
	  cmake -G Ninja -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	    -DLLVM_USE_SANITIZER="Address;Undefined" \
	    -DLLVM_USE_SANITIZE_COVERAGE=ON $(CMAKE_FLAGS)
	@cmake --build $(SANITIZE_DIR)
	@$(SANITIZE_ENV) utils/run-tests.sh $(SANITIZE_DIR) -E 'results-current|docs-commands$$'

# libFuzzer on the passes, from the sanitizer build: FUZZ_SECONDS long.
FUZZ_SECONDS ?= 600
fuzz:
	@test -x $(SANITIZE_DIR)/bin/hyperoffload-fuzz || $(MAKE) check-sanitize
	@utils/fuzz.sh $(SANITIZE_DIR) $(FUZZ_SECONDS)

bench: build
	@$(BUILD_DIR)/bin/hyperoffload-bench

results: build
	@utils/results.py $(BUILD_DIR) --write
	@echo "docs/Results.md and docs/Results.json regenerated"

format: deps
	@utils/format.sh

docs: build
	@cmake --build $(BUILD_DIR) --target hyperoffload-doc
	@cp $(BUILD_DIR)/docs/HyperOffload/*.md docs/reference/
	@echo "docs/reference/ regenerated"

clean:
	rm -rf $(BUILD_DIR)
