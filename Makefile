# Front door: `make run` and `make test` install what is missing, configure, build and go.
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Debug -DILLEGALD_SANITIZE=ON
ARGS   ?=

.PHONY: all build build-tests run test bench clean install format

all: build

build:
	sh deploy/deps.sh build
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DILLEGALD_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS)

build-tests:
	sh deploy/deps.sh test
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DILLEGALD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/bin/illegald $(ARGS)

test: build-tests
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build-tests
	ctest --test-dir $(BUILD) --output-on-failure -L bench

install:
	sh deploy/deps.sh build
	cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DILLEGALD_TESTS=OFF
	cmake --build build-release -j $(JOBS)
	cmake --install build-release $(if $(PREFIX),--prefix $(PREFIX),)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) build-release
