# Thin wrapper over CMake, Ninja, lit and ctest; see README.md for the plain
# commands. Every target installs missing Debian packages first.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
endif

.PHONY: all deps configure build demo check bench results format docs clean

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

bench: build
	@$(BUILD_DIR)/bin/hyperoffload-bench

results: build
	@utils/results.py $(BUILD_DIR) --write
	@echo "docs/Results.md regenerated"

format: deps
	@utils/format.sh

docs: build
	@cmake --build $(BUILD_DIR) --target hyperoffload-doc
	@cp $(BUILD_DIR)/docs/HyperOffload/*.md docs/reference/
	@echo "docs/reference/ regenerated"

clean:
	rm -rf $(BUILD_DIR)
