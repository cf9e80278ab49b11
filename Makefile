# Front door: `make run` and `make test` install what is missing, configure, build and go.
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Debug -DILLEGALD_SANITIZE=ON
ARGS   ?=
# Tests at once: twice the cores, as most long tests wait on the daemon's
# timers; those that keep a core busy take two slots (tests/CMakeLists.txt).
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
FUZZ_SECONDS ?= 60
BENCH_BUILD ?= build-bench
BENCH_CFLAGS ?=

.PHONY: all build build-tests build-release build-clang run test bench build-bench fuzz clean install format

all: build

build:
	sh deploy/deps.sh build
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DILLEGALD_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS)

build-tests:
	sh deploy/deps.sh test
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DILLEGALD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

# Runs what users run: the Release build (build-release/, as `make install`
# and the image make it), not the sanitized Debug build of `make test`. The
# build's output goes to a log, shown only when the build fails: what a
# newcomer sees is the daemon's few lines, the table's address among them
# (and two more when the build left the Discord Activity out for want of npm).
RUN_BUILD = build-release
run:
	@mkdir -p $(RUN_BUILD)
	@echo "illegald: installing what is missing and building (output in $(RUN_BUILD)/make-run.log)"
	@$(MAKE) --no-print-directory build-release > $(RUN_BUILD)/make-run.log 2>&1 || \
		{ tail -n 40 $(RUN_BUILD)/make-run.log; echo "illegald: the build failed; the whole output is in $(RUN_BUILD)/make-run.log"; exit 1; }
	@grep "^activity sdk:" $(RUN_BUILD)/make-run.log | sed 's/^activity sdk:/illegald:/' || true
	@echo "illegald: starting (Ctrl-C stops it)"
	@./$(RUN_BUILD)/bin/illegald $(ARGS)

# The suite runs in the sanitized Debug build; the Release build (gcc -O2, as
# `make install` and the image make it) and a clang build are only compiled,
# so that neither can break unnoticed.
test: build-tests build-release build-clang
	ctest --test-dir $(BUILD) --output-on-failure -j $(TEST_JOBS) -LE bench

build-release:
	sh deploy/deps.sh build
	CC=gcc cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DILLEGALD_TESTS=OFF
	cmake --build build-release -j $(JOBS)

build-clang:
	sh deploy/deps.sh fuzz
	CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Debug -DILLEGALD_TESTS=OFF
	cmake --build build-clang -j $(JOBS)

# Benchmarks (ctest label "bench", which `make test` leaves out) on a Release build in
# $(BENCH_BUILD); tests/bench/bench_vs_discordjs.c prints the README "Performance" table.
# `build-bench` alone compiles them (CI does, since gcc -O2 warns where -O0 does not).
bench: build-bench
	ctest --test-dir $(BENCH_BUILD) --verbose -L bench

build-bench:
	sh deploy/deps.sh test
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DILLEGALD_TESTS=ON \
		$(if $(BENCH_CFLAGS),-DCMAKE_C_FLAGS="$(BENCH_CFLAGS)",)
	cmake --build $(BENCH_BUILD) -j $(JOBS)

# Runs every libFuzzer target for FUZZ_SECONDS from its seed corpus (clang build in build-fuzz/).
fuzz:
	sh deploy/deps.sh fuzz
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DILLEGALD_SANITIZE=ON \
		-DILLEGALD_FUZZ=ON -DILLEGALD_TESTS=ON
	cmake --build build-fuzz -j $(JOBS) --target fuzz_all
	sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

install: build-release
	cmake --install build-release $(if $(PREFIX),--prefix $(PREFIX),)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) build-release build-clang build-fuzz $(BENCH_BUILD)
