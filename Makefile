# tinytrace - build, test and benchmark.  `make demo` first, `make test` to check everything.
#
#   make            build the examples (build/examples/*)
#   make demo       build and run the example a newcomer should see first
#   make docs       the graphs of docs/TRACING.md (text, Graphviz, and SVG where dot is installed)
#   make test       header compile matrix + the suite built 4 ways (gcc C99, clang C11, g++ C++17,
#                   gcc gnu11) and under AddressSanitizer + UBSan, each run once per ISA the CPU
#                   has (AVX-512, AVX2, plain C: chosen at run time, no -m flags); the aarch64
#                   build under qemu where the cross tools are installed; the firmware image; ends
#                   with "N passed, N failed"
#   make test-quick the suite once, gcc C99 (TEST_FILES=tests/test_x.c limits it; BUILD=dir)
#   make test-cross the suite for aarch64 (aarch64-linux-gnu-gcc), run under qemu-aarch64
#   make test-valgrind  the C99 suite under valgrind memcheck (minutes)
#   make fuzz       the four libFuzzer targets, FUZZ_SECONDS each (default 60)
#   make bench      the benchmark suite, built plain -O2 as users build (ISA chosen at run time):
#                   machine limits, then every workload eager and compiled on 1 and all threads;
#                   one table, also in bench/out/results.csv (never part of test)
#   make bench-native  the same built with -march=native (bench/out/results_native.csv)
#   make exported   graphs exported as C (tt_graph_export_c) built -Werror and checked against
#                   their graphs and double references, plain and under ASan (part of test)
#   make firmware   SimpleCNN exported as C, and as a .ttg graph loaded with no heap, each in a
#                   Cortex-M4F image run under qemu-system-arm (part of test where the ARM tools are)
#   make cuda-emu   the CUDA backend's kernels and graphs run on the CPU through tests/cuda_emu.h,
#                   against the CPU executor, plain and under ASan; planted bugs must fail (part of test)
#   make cuda       tinytrace_cuda.cu compiled by nvcc for every architecture listed, warnings as
#                   errors, ptxas's register and spill report (no spills allowed); part of test where
#                   nvcc is installed (no GPU needed)
#   make test-cuda  the same tests on a real GPU; make bench-cuda: the GPU benchmarks
#   make clean      remove build/

# Build the test programs side by side (their runs stay in order, in the recipe of `test`).
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)

CC      ?= cc
GCC     ?= gcc
CLANG   ?= clang
CXX     ?= g++
BUILD   ?= build
WARN    := -Wall -Wextra -Wpedantic -Werror
OPT     := -O2 -g
LIBS    := -lm -lpthread

TEST_FILES ?= $(filter-out tests/test_main.c tests/test_firmware.c tests/test_cuda.c,$(wildcard tests/test_*.c))
TEST_SRCS   = tests/test_main.c tests/tt_impl.c $(TEST_FILES)
EXAMPLES    = $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
SANITIZE   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ARM_CC     ?= arm-none-eabi-gcc
ARM_FLAGS  := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os
CROSS_CC   ?= aarch64-linux-gnu-gcc
CROSS_RUN  ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
# The aarch64 suite is part of `make test` where the cross compiler and qemu are installed
# (.ci/run installs them); elsewhere test says it was not run.
HAVE_CROSS := $(shell command -v $(CROSS_CC) >/dev/null 2>&1 && command -v $(firstword $(CROSS_RUN)) >/dev/null 2>&1 && echo yes)
# The firmware image is built in `make test` where arm-none-eabi-gcc is installed, and run where
# qemu-system-arm is too (.ci/run installs both).
HAVE_ARM   := $(shell command -v $(ARM_CC) >/dev/null 2>&1 && echo yes)
# make cuda is part of `make test` where nvcc is installed (it needs no GPU).
NVCC       ?= nvcc
HAVE_NVCC  := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes)

.PHONY: all demo docs docs-check lesson9-firmware test test-quick test-cross test-valgrind compile-matrix check-api fuzz examples bench bench-native exported firmware cuda cuda-emu cuda-planted test-cuda bench-cuda clean FORCE

all: examples

examples: $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c tinytrace.h
	@mkdir -p $(dir $@)
	$(GCC) -std=c99 $(WARN) $(OPT) -I. $< -o $@ $(LIBS)

# What a newcomer should see first (examples/00_tour.c, a few seconds): eager ops; a small CNN
# traced, compiled (fused nodes, the memory plan) and checked bitwise against eager; how fast
# here; the graph saved, loaded and exported as C for a microcontroller; where the course goes.
demo: $(BUILD)/examples/00_tour
	./$(BUILD)/examples/00_tour $(BUILD)

# The list of test groups, found in the test files (see tests/test_main.c).
$(BUILD)/groups.inc: $(TEST_FILES)
	@mkdir -p $(BUILD)
	@{ printf '#define TT_TEST_GROUPS'; for f in $(TEST_FILES); do \
	   sed -n 's/^TT_TEST_GROUP(\([A-Za-z0-9_]*\)).*/ X(\1)/p' $$f | tr -d '\n'; done; echo; } > $@

# One test binary per language mode and compiler; every file of the suite is C99 and C++17.
$(BUILD)/test_c99: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(GCC) -std=c99 $(WARN) $(OPT) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)
$(BUILD)/test_c11_clang: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(CLANG) -std=c11 $(WARN) $(OPT) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)
$(BUILD)/test_cpp17: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(CXX) -std=c++17 -x c++ $(WARN) $(OPT) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)
# In GCC's default GNU mode, what `gcc -O2 file.c` gives a user: GCC contracts a*b+c into an
# FMA in the AVX2 and AVX-512 twins (ISO modes do not), and compiled graphs must still equal
# eager bitwise.
$(BUILD)/test_gnu11: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(GCC) -std=gnu11 $(WARN) $(OPT) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)
# The sanitizers watch every ISA's kernels too (intrinsics, masked loads and stores).
$(BUILD)/test_asan: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(CLANG) -std=c11 $(WARN) -O1 -g $(SANITIZE) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)

# The header alone, every compiler and mode, plus the firmware switches.
compile-matrix:
	@mkdir -p $(BUILD)
	$(GCC)   -std=c99   $(WARN) -Wdouble-promotion -O2 -c tests/compile_c.c -o $(BUILD)/cm_gcc_c99.o
	$(GCC)   -std=c11   $(WARN) -O2 -c tests/compile_c.c -o $(BUILD)/cm_gcc_c11.o
	$(CLANG) -std=c99   $(WARN) -Wdouble-promotion -O2 -c tests/compile_c.c -o $(BUILD)/cm_clang_c99.o
	$(CLANG) -std=c11   $(WARN) -O2 -c tests/compile_c.c -o $(BUILD)/cm_clang_c11.o
	$(CXX)   -std=c++17 $(WARN) -O2 -x c++ -c tests/compile_c.c -o $(BUILD)/cm_gxx_cpp17.o
	clang++  -std=c++17 $(WARN) -O2 -x c++ -c tests/compile_c.c -o $(BUILD)/cm_clangxx_cpp17.o
	$(GCC)   -std=c99   $(WARN) -O2 -DTT_STATIC -c tests/compile_c.c -o $(BUILD)/cm_static.o
	$(GCC)   -std=c99   $(WARN) -O2 -DTT_CUDA -c tests/compile_c.c -o $(BUILD)/cm_cuda_decls.o
	clang++  -std=c++17 $(WARN) -O2 -DTT_CUDA -x c++ -c tests/compile_c.c -o $(BUILD)/cm_cuda_decls_cpp.o
	$(GCC)   -std=c99   $(WARN) -O3 -c tests/compile_c.c -o $(BUILD)/cm_gcc_o3.o
	$(CXX)   -std=c++17 $(WARN) -O3 -x c++ -c tests/compile_c.c -o $(BUILD)/cm_gxx_o3.o
	$(GCC)   -std=c99   $(WARN) -Wdouble-promotion -O2 -DTT_NO_THREADS -DTT_NO_STDIO -c tests/compile_c.c -o $(BUILD)/cm_nothreads.o
	$(GCC)   -std=gnu11 $(WARN) -O2 -march=native -c tests/compile_c.c -o $(BUILD)/cm_native.o
	$(GCC)   -std=gnu11 $(WARN) -O2 -march=native -DTT_NO_SIMD -c tests/compile_c.c -o $(BUILD)/cm_nosimd.o
	@# the README's example, as a C++ user builds it (GCC warns on printf of a possibly NULL tt_error)
	@awk '/^#define TINYTRACE_IMPLEMENTATION/{f=1} f&&/^```/{exit} f' README.md > $(BUILD)/readme_example.c
	$(CXX)   -std=c++17 $(WARN) -O2 -x c++ -I. -c $(BUILD)/readme_example.c -o $(BUILD)/cm_readme.o
	@# -ffast-math must be refused with a message, not compiled into wrong NaN handling
	@if $(GCC) -std=c99 -O2 -ffast-math -c tests/compile_c.c -o $(BUILD)/cm_fastmath.o 2> $(BUILD)/cm_fastmath.log; then \
	   echo "tinytrace.h compiled under -ffast-math: it must refuse"; exit 1; fi
	@grep -q 'without -ffast-math' $(BUILD)/cm_fastmath.log || { cat $(BUILD)/cm_fastmath.log; exit 1; }
	@if command -v $(ARM_CC) >/dev/null 2>&1; then \
	   echo "$(ARM_CC) $(ARM_FLAGS) ..."; \
	   $(ARM_CC) -std=c99 $(WARN) $(ARM_FLAGS) -c tests/test_firmware.c -o $(BUILD)/cm_arm_fw.o && \
	   $(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(ARM_FLAGS) -DTT_NO_THREADS -c tests/compile_c.c -o $(BUILD)/cm_arm.o || exit 1; \
	 else echo "no $(ARM_CC): the Cortex-M build is not checked"; fi
	$(GCC)   -std=c99   $(WARN) -O2 tests/test_firmware.c -o $(BUILD)/test_firmware -lm
	./$(BUILD)/test_firmware
	$(GCC)   -std=c99   $(WARN) -Wdouble-promotion -O2 -DTT_FLOAT_ACCUM=1 tests/test_firmware.c -o $(BUILD)/test_firmware_float -lm
	./$(BUILD)/test_firmware_float
	@if nm $(BUILD)/test_firmware | grep -E ' U (malloc|calloc|realloc|free|printf|puts|fopen|fwrite|pthread_[a-z_]*)(@|$$)'; then \
	   echo "firmware build references malloc, stdio or pthreads"; exit 1; fi

# The graphs of docs/TRACING.md: docs/graphs/gen_graphs.c traces the lessons' models and writes
# each graph as text (NAME.txt) and Graphviz (NAME.dot). `make docs` copies them into docs/graphs
# and draws NAME.svg where Graphviz's dot is installed; docs-check (part of test) writes them
# again and compares (tests/check_docs.sh).
$(BUILD)/gen_graphs: docs/graphs/gen_graphs.c tinytrace.h
	@mkdir -p $(BUILD)
	$(GCC) -std=c99 $(WARN) -O2 -I. $< -o $@ $(LIBS)

docs: $(BUILD)/gen_graphs
	@rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs
	./$(BUILD)/gen_graphs $(BUILD)/docs
	rm -f docs/graphs/*.dot docs/graphs/*.txt
	cp $(BUILD)/docs/*.dot $(BUILD)/docs/*.txt docs/graphs/
	@if command -v dot >/dev/null 2>&1; then \
	   rm -f docs/graphs/*.svg; \
	   for f in docs/graphs/*.dot; do dot -Tsvg "$$f" -o "$${f%.dot}.svg" || exit 1; done; \
	   echo "docs/graphs: pictures drawn by $$(dot -V 2>&1)"; \
	 else echo "no Graphviz (dot): docs/graphs/*.svg were not redrawn (apt-get install graphviz)"; fi

docs-check: $(BUILD)/gen_graphs
	bash tests/check_docs.sh ./$(BUILD)/gen_graphs $(BUILD)/docs-check

# Every public function of the header has a row in the bad-argument table (tests/test_args.c).
check-api:
	bash tests/check_api_table.sh
	sh tests/check_contents.sh

# Each suite run is a target of its own, so that `make -j` runs a suite while the others still
# compile (qemu's and ASan's runs are long); its output goes to a .log, and FORCE runs it on every
# `make test`. The recipe of test prints the last line of each log, ASan's last.
SUITE_RUNS := $(BUILD)/test_c99.run $(BUILD)/test_c11_clang.run $(BUILD)/test_cpp17.run $(BUILD)/test_gnu11.run \
              $(BUILD)/test_asan.run $(if $(HAVE_CROSS),$(BUILD)/test_aarch64.run) $(BUILD)/examples.run

test: compile-matrix check-api docs-check exported cuda-emu $(SUITE_RUNS) lesson9-firmware $(if $(HAVE_ARM),firmware) $(if $(HAVE_NVCC),cuda)
	@for t in c99 c11_clang cpp17 gnu11; do echo "test_$$t: $$(tail -n 1 $(BUILD)/test_$$t.log)"; done
	@if [ -n "$(HAVE_CROSS)" ]; then echo "aarch64 (qemu, NEON pass): $$(tail -n 1 $(BUILD)/test_aarch64.log)"; \
	 else echo "no $(CROSS_CC) or qemu-aarch64: the aarch64 suite is not run"; fi
	@grep '^== kernels' $(BUILD)/test_c99.log
	@if [ -z "$(HAVE_NVCC)" ]; then echo "no nvcc: make cuda (the nvcc build of tinytrace_cuda.cu) is not run"; fi
	@echo "test_asan (AddressSanitizer + UBSan, leak checks):"
	@tail -n 1 $(BUILD)/test_asan.log

$(BUILD)/%.run: $(BUILD)/% FORCE
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$< > $(BUILD)/$*.log 2>&1 || { cat $(BUILD)/$*.log; exit 1; }
$(BUILD)/test_aarch64.run: $(BUILD)/test_aarch64 FORCE
	TT_ISA=neon $(CROSS_RUN) ./$< > $(BUILD)/test_aarch64.log 2>&1 || { cat $(BUILD)/test_aarch64.log; exit 1; }
$(BUILD)/examples.run: $(EXAMPLES) FORCE
	@for e in $(EXAMPLES); do echo "running $$e"; ./$$e $(BUILD) > /dev/null || exit 1; done
FORCE:

# TT_ISA=avx2 (or scalar, ...) runs the one pass of that ISA.
test-quick: $(BUILD)/test_c99
	./$(BUILD)/test_c99

# The suite built for aarch64 and run under qemu-user (Debian: gcc-aarch64-linux-gnu, qemu-user).
# Correctness only: timings under qemu mean nothing. `make test` runs its NEON pass only (the
# plain-C twins are tested on the host; qemu is slow); test-cross runs every pass.
$(BUILD)/test_aarch64: $(TEST_SRCS) tests/*.h tests/fuzz_*.c tinytrace.h $(BUILD)/groups.inc
	$(CROSS_CC) -std=c99 $(WARN) $(OPT) -I$(BUILD) $(TEST_SRCS) -o $@ $(LIBS)
test-cross: $(BUILD)/test_aarch64
	$(CROSS_RUN) ./$(BUILD)/test_aarch64

# The libFuzzer targets (clang): a differential fuzzer of random programs, eager against
# traced and compiled (and saved and loaded), random hostile arguments to every public
# function, and the two loaders (.ttg graph files, safetensors) on mutated files. Each runs
# FUZZ_SECONDS (default 60; the issues' long runs used 1800) on its corpus in build/, seeded
# from tests/corpus/ (copied: libFuzzer's new inputs never land in the source tree); a
# fixed-seed slice of each is part of `make test` (tests/test_fuzz_*.c).
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=c11 -O1 -g -DTT_LIBFUZZER -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

fuzz: $(BUILD)/fuzz_ops $(BUILD)/fuzz_args $(BUILD)/fuzz_ttg $(BUILD)/fuzz_safetensors
	@mkdir -p $(BUILD)/corpus_ops $(BUILD)/corpus_args $(BUILD)/corpus_ttg $(BUILD)/corpus_safetensors
	@for f in tests/corpus/safetensors/*.safetensors; do cp "$$f" $(BUILD)/corpus_safetensors/; done
	./$(BUILD)/fuzz_ops -max_total_time=$(FUZZ_SECONDS) -max_len=512 $(BUILD)/corpus_ops
	./$(BUILD)/fuzz_args -max_total_time=$(FUZZ_SECONDS) -max_len=1024 $(BUILD)/corpus_args
	FZ_TTG_SEEDS=$(BUILD)/corpus_ttg ./$(BUILD)/fuzz_ttg -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
	    -timeout=10 -rss_limit_mb=2048 $(BUILD)/corpus_ttg
	./$(BUILD)/fuzz_safetensors -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -dict=tests/corpus/safetensors.dict $(BUILD)/corpus_safetensors

$(BUILD)/fuzz_%: tests/fuzz_%.c tests/*.h tinytrace.h
	@mkdir -p $(BUILD)
	$(CLANG) $(FUZZ_FLAGS) $< -o $@ -lm -lpthread

# The suite under valgrind (memcheck; slow: minutes), for what the sanitizers cannot see.
test-valgrind: $(BUILD)/test_c99
	valgrind -q --error-exitcode=1 --leak-check=full ./$(BUILD)/test_c99 > $(BUILD)/test_valgrind.log || { cat $(BUILD)/test_valgrind.log; exit 1; }
	@tail -n 1 $(BUILD)/test_valgrind.log

# One program, one table (also in bench/out/results.csv); BENCH_ARGS="sgemm chain" runs the
# workloads whose names contain one of the words, BENCH_QUICK=1 a few runs of each.
# `bench` builds the benchmark as a user drops the header in (plain -O2: the kernels' ISA is
# chosen at run time, TT_ISA caps it); `bench-native` with -march=native, to compare.
bench: $(BUILD)/bench_suite
	@mkdir -p bench/out
	./$(BUILD)/bench_suite $(BENCH_ARGS)

bench-native: $(BUILD)/bench_suite_native
	@mkdir -p bench/out
	BENCH_CSV=bench/out/results_native.csv ./$(BUILD)/bench_suite_native $(BENCH_ARGS)

# The chain also runs as C written by tt_graph_export_c (the "exported_c" row), built at -O3
# like the hand-written C loop it is compared with (BENCH_HOT in bench_util.h).
BENCH_EXPORT := $(BUILD)/bench_export
$(BENCH_EXPORT)/bench_chain.c: bench/export_chain_gen.c bench/bench_models.h tinytrace.h
	@mkdir -p $(BENCH_EXPORT)
	$(GCC) -std=c99 $(WARN) -O2 -I. $< -o $(BENCH_EXPORT)/export_chain_gen $(LIBS)
	./$(BENCH_EXPORT)/export_chain_gen $(BENCH_EXPORT)

$(BUILD)/bench_suite: bench/bench.c bench/bench_util.h bench/bench_models.h tinytrace.h $(BENCH_EXPORT)/bench_chain.c
	@mkdir -p $(BUILD)
	$(GCC) -std=c99 $(WARN) -O3 -I. -c $(BENCH_EXPORT)/bench_chain.c -o $(BENCH_EXPORT)/bench_chain.o
	$(GCC) -std=c99 $(WARN) -O2 -I. -I$(BENCH_EXPORT) -DBENCH_EXPORTED_CHAIN $< $(BENCH_EXPORT)/bench_chain.o -o $@ $(LIBS)

$(BUILD)/bench_suite_native: bench/bench.c bench/bench_util.h bench/bench_models.h tinytrace.h $(BENCH_EXPORT)/bench_chain.c
	@mkdir -p $(BUILD)
	$(GCC) -std=c99 $(WARN) -O3 -march=native -I. -c $(BENCH_EXPORT)/bench_chain.c -o $(BENCH_EXPORT)/bench_chain_native.o
	$(GCC) -std=c99 $(WARN) -O2 -march=native -I. -I$(BENCH_EXPORT) -DBENCH_EXPORTED_CHAIN $< $(BENCH_EXPORT)/bench_chain_native.o \
	  -o $@ $(LIBS)

# Exported C: tests/export/export_gen.c writes its models as C into $(EXPORT_DIR); the written
# files are built with the warnings as errors beside tests/export/test_exported.c, which checks
# them against their graphs (bitwise) and double references; once plain, once under ASan + UBSan.
EXPORT_DIR  := $(BUILD)/export
EXPORT_SRCS := $(addprefix $(EXPORT_DIR)/,simplecnn.c simplecnn_plain.c chain.c mixed.c unfused.c simplecnn_b2.c heads.c)

$(EXPORT_DIR)/stamp: tests/export/export_gen.c tests/export/export_models.h tinytrace.h
	@mkdir -p $(EXPORT_DIR)
	$(GCC) -std=c99 $(WARN) -O2 $< -o $(EXPORT_DIR)/export_gen $(LIBS)
	./$(EXPORT_DIR)/export_gen $(EXPORT_DIR)
	@touch $@
$(EXPORT_SRCS): $(EXPORT_DIR)/stamp

$(BUILD)/test_exported: tests/export/test_exported.c tests/export/export_models.h $(EXPORT_SRCS)
	$(GCC) -std=c99 $(WARN) -O2 -I. -I$(EXPORT_DIR) tests/export/test_exported.c $(EXPORT_SRCS) -o $@ $(LIBS)
$(BUILD)/test_exported_asan: tests/export/test_exported.c tests/export/export_models.h $(EXPORT_SRCS)
	$(CLANG) -std=c99 $(WARN) -O1 -g $(SANITIZE) -I. -I$(EXPORT_DIR) tests/export/test_exported.c $(EXPORT_SRCS) -o $@ $(LIBS)

exported: $(BUILD)/test_exported $(BUILD)/test_exported_asan
	./$(BUILD)/test_exported
	@ASAN_OPTIONS=detect_leaks=1 ./$(BUILD)/test_exported_asan > $(BUILD)/test_exported_asan.log 2>&1 || \
	   { cat $(BUILD)/test_exported_asan.log; exit 1; }
	@echo "test_exported (ASan + UBSan): $$(tail -n 1 $(BUILD)/test_exported_asan.log)"

# Firmware: three Cortex-M4F images (tests/firmware: startup.c, link.ld, a main each), run under
# qemu-system-arm (board mps2-an386, semihosting): SimpleCNN exported as C (simplecnn_export.c);
# the selftest of every model `make exported` writes (exported_selftests.c); SimpleCNN traced on
# the host (simplecnn_gen.c), saved as a .ttg graph in a const array and loaded with no heap
# (simplecnn_ttg.c). Each compares its outputs with the host's. Debian: gcc-arm-none-eabi
# libnewlib-arm-none-eabi qemu-system-arm.
FW_DIR   := $(BUILD)/firmware
FW_FLAGS := $(ARM_FLAGS) -ffunction-sections -fdata-sections
FW_LINK  := -nostartfiles -T tests/firmware/link.ld -Wl,--gc-sections -Wl,--start-group -lc_nano -lm -lnosys -lgcc -Wl,--end-group

# tests/firmware/check_image.sh prints an image's sizes, fails when it links malloc or stdio (the
# exported ones: or a double-precision routine, __aeabi_d*; they are built with
# -Wdouble-promotion) and runs it. The image the firmware issue measures is
# $(FW_DIR)/simplecnn.elf; the last line, read by tools, gives its figures.
FW_SIZE = $$(arm-none-eabi-size $(1) | awk 'NR==2 {print $$1 + $$2}')
FW_ARENA = $$(awk '/define $(1)_ARENA_BYTES/ {print $$3 + 0}' $(2))

firmware: $(FW_DIR)/simplecnn_ttg.elf $(FW_DIR)/simplecnn.elf $(FW_DIR)/exported_selftests.elf
	@echo "== firmware: SimpleCNN loaded from a .ttg graph in flash ($(FW_DIR)/simplecnn_ttg.elf)"
	@bash tests/firmware/check_image.sh $(FW_DIR)/simplecnn_ttg.elf > $(FW_DIR)/simplecnn_ttg.log; s=$$?; \
	 cat $(FW_DIR)/simplecnn_ttg.log; \
	 echo "firmware simplecnn (loaded .ttg): flash $(call FW_SIZE,$(FW_DIR)/simplecnn_ttg.elf) B, $$(tail -n 1 $(FW_DIR)/simplecnn_ttg.log)"; \
	 exit $$s
	@echo "== firmware: every exported test model's selftest on the device ($(FW_DIR)/exported_selftests.elf)"
	@bash tests/firmware/check_image.sh $(FW_DIR)/exported_selftests.elf float-only
	@echo "== firmware: SimpleCNN exported as C ($(FW_DIR)/simplecnn.elf)"
	@w=$$(arm-none-eabi-nm -S -t d $(FW_DIR)/simplecnn.elf | awk '$$4 ~ /^simplecnn_c[0-9]+$$/ {s += $$2} END {print s + 0}'); \
	 f=$(call FW_SIZE,$(FW_DIR)/simplecnn.elf); \
	 echo "flash $$f B: weights $$w B, code and the rest $$((f - w)) B"
	@bash tests/firmware/check_image.sh $(FW_DIR)/simplecnn.elf float-only > $(FW_DIR)/simplecnn.log; s=$$?; \
	 cat $(FW_DIR)/simplecnn.log; \
	 echo "firmware simplecnn: flash $(call FW_SIZE,$(FW_DIR)/simplecnn.elf) B, arena $(call FW_ARENA,SIMPLECNN_PLAIN,$(EXPORT_DIR)/simplecnn_plain.h) B, fused arena $(call FW_ARENA,SIMPLECNN,$(EXPORT_DIR)/simplecnn.h) B, $$(tail -n 1 $(FW_DIR)/simplecnn.log)"; \
	 exit $$s

# Lesson 9's firmware: examples/09_firmware.c writes tinycnn.h, tinycnn.c and tinycnn_main.c (a
# main with static buffers: no heap, no threads, no stdio; exit status 0 when tinycnn_selftest
# passes). Built on the host as firmware is built (TT_NO_*; nm must find no malloc, stdio or
# pthreads in it) and run; where arm-none-eabi-gcc is installed, also as a Cortex-M4F image with
# the firmware target's flags and startup, run under qemu-system-arm where that is installed.
LESSON9_DIR := $(BUILD)/lesson9
FW_NO       := -DTT_NO_THREADS -DTT_NO_MALLOC -DTT_NO_STDIO

$(LESSON9_DIR)/stamp: $(BUILD)/examples/09_firmware
	@mkdir -p $(LESSON9_DIR)
	$< $(LESSON9_DIR) > $(LESSON9_DIR)/lesson.log 2>&1 || { cat $(LESSON9_DIR)/lesson.log; exit 1; }
	@touch $@

$(LESSON9_DIR)/tinycnn_host: $(LESSON9_DIR)/stamp tinytrace.h
	$(GCC) -std=c99 $(WARN) -Wdouble-promotion -O2 $(FW_NO) -I. -I$(LESSON9_DIR) \
	  $(LESSON9_DIR)/tinycnn.c $(LESSON9_DIR)/tinycnn_main.c -o $@ -lm

$(FW_DIR)/lesson9.elf: $(LESSON9_DIR)/stamp tinytrace.h $(FW_DIR)/startup.o tests/firmware/link.ld
	$(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(FW_FLAGS) -I. -I$(LESSON9_DIR) -c $(LESSON9_DIR)/tinycnn.c -o $(FW_DIR)/lesson9_tinycnn.o
	$(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(FW_FLAGS) -I$(LESSON9_DIR) -c $(LESSON9_DIR)/tinycnn_main.c -o $(FW_DIR)/lesson9_main.o
	$(ARM_CC) $(FW_FLAGS) $(FW_DIR)/lesson9_tinycnn.o $(FW_DIR)/lesson9_main.o $(FW_DIR)/startup.o $(FW_LINK) \
	  -Wl,-Map=$(FW_DIR)/lesson9.map -o $@

lesson9-firmware: $(LESSON9_DIR)/tinycnn_host $(if $(HAVE_ARM),$(FW_DIR)/lesson9.elf)
	@sed -n '/^the device needs/,$$p' $(LESSON9_DIR)/lesson.log
	@if nm $(LESSON9_DIR)/tinycnn_host | grep -E ' U (malloc|calloc|realloc|free|printf|puts|fopen|fwrite|pthread_[a-z_]*)(@|$$)'; then \
	   echo "lesson 9's firmware references malloc, stdio or pthreads"; exit 1; fi
	@$(LESSON9_DIR)/tinycnn_host || { s=$$?; echo "lesson 9's firmware (host build) failed: exit status $$s"; exit 1; }
	@echo "lesson 9's firmware (host build, $(FW_NO)): no heap, stdio or threads linked; selftest passed"
	@if [ -n "$(HAVE_ARM)" ]; then echo "== firmware: lesson 9's tinycnn ($(FW_DIR)/lesson9.elf)"; \
	   bash tests/firmware/check_image.sh $(FW_DIR)/lesson9.elf float-only || exit 1; \
	 else echo "no $(ARM_CC): lesson 9's Cortex-M4F image is not built"; fi

# startup.c is bare-metal glue (register variables, a vector table of addresses): no -Wpedantic.
$(FW_DIR)/startup.o: tests/firmware/startup.c tests/firmware/startup.h
	@mkdir -p $(FW_DIR)
	$(ARM_CC) -std=gnu99 -Wall -Wextra -Werror $(FW_FLAGS) -c $< -o $@

$(FW_DIR)/simplecnn.elf: tests/firmware/simplecnn_export.c $(FW_DIR)/startup.o tests/firmware/link.ld \
                         $(FW_DIR)/export_simplecnn.o
	$(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(FW_FLAGS) -I$(EXPORT_DIR) -c tests/firmware/simplecnn_export.c -o $(FW_DIR)/simplecnn_main.o
	$(ARM_CC) $(FW_FLAGS) $(FW_DIR)/export_simplecnn.o $(FW_DIR)/simplecnn_main.o $(FW_DIR)/startup.o $(FW_LINK) \
	  -Wl,-Map=$(FW_DIR)/simplecnn.map -o $@

# Each exported model in an object of its own (their constants and functions are static).
$(FW_DIR)/export_%.o: $(EXPORT_DIR)/%.c tinytrace.h
	@mkdir -p $(FW_DIR)
	$(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(FW_FLAGS) -I. -I$(EXPORT_DIR) -c $< -o $@

$(FW_DIR)/exported_selftests.elf: tests/firmware/exported_selftests.c $(FW_DIR)/startup.o tests/firmware/link.ld \
                                  $(patsubst $(EXPORT_DIR)/%.c,$(FW_DIR)/export_%.o,$(EXPORT_SRCS))
	$(ARM_CC) -std=c99 $(WARN) -Wdouble-promotion $(FW_FLAGS) -I$(EXPORT_DIR) -c $< -o $(FW_DIR)/exported_selftests.o
	$(ARM_CC) $(FW_FLAGS) $(FW_DIR)/exported_selftests.o $(patsubst $(EXPORT_DIR)/%.c,$(FW_DIR)/export_%.o,$(EXPORT_SRCS)) \
	  $(FW_DIR)/startup.o $(FW_LINK) -o $@

$(FW_DIR)/simplecnn_graph.h: tests/firmware/simplecnn_gen.c tinytrace.h
	@mkdir -p $(FW_DIR)
	$(GCC) -std=c99 $(WARN) -O2 $< -o $(FW_DIR)/simplecnn_gen $(LIBS)
	./$(FW_DIR)/simplecnn_gen $@

$(FW_DIR)/simplecnn_ttg.elf: tests/firmware/simplecnn_ttg.c $(FW_DIR)/startup.o tests/firmware/link.ld \
                             $(FW_DIR)/simplecnn_graph.h tinytrace.h
	$(ARM_CC) -std=c99 $(WARN) $(FW_FLAGS) -I$(FW_DIR) -c tests/firmware/simplecnn_ttg.c -o $(FW_DIR)/simplecnn_ttg.o
	$(ARM_CC) $(FW_FLAGS) $(FW_DIR)/simplecnn_ttg.o $(FW_DIR)/startup.o $(FW_LINK) -Wl,-Map=$(FW_DIR)/simplecnn_ttg.map -o $@

clean:
	rm -rf build build-*

# ---- the CUDA backend ------------------------------------------------------------------------------
# tests/test_cuda.c runs the backend's kernels and whole graphs against the CPU. cuda-emu links it
# with tinytrace_cuda.cu built as C++ on tests/cuda_emu.h (no GPU: threads of a block are fibers
# with real barriers), plain and under ASan + UBSan; test-cuda with the nvcc build, on a GPU.
CUDA_DIR       := $(BUILD)/cuda
CUDA_TEST_SRCS := tests/test_main.c tests/tt_impl.c tests/test_cuda.c
CUDA_TEST_DEPS := $(CUDA_TEST_SRCS) tests/*.h tinytrace.h $(CUDA_DIR)/groups.inc
EMU_DEPS       := tinytrace_cuda.cu tinytrace.h tests/cuda_emu_backend.cpp tests/cuda_emu.h tests/cuda_emu_knobs.h

$(CUDA_DIR)/groups.inc:
	@mkdir -p $(CUDA_DIR)
	@echo '#define TT_TEST_GROUPS X(cuda)' > $@

$(CUDA_DIR)/emu_backend.o: $(EMU_DEPS)
	$(CXX) -std=c++17 $(WARN) -O2 -g -Itests -c tests/cuda_emu_backend.cpp -o $@
$(CUDA_DIR)/emu_backend_asan.o: $(EMU_DEPS)
	clang++ -std=c++17 $(WARN) -O1 -g $(SANITIZE) -Itests -c tests/cuda_emu_backend.cpp -o $@
$(CUDA_DIR)/test_cuda_emu: $(CUDA_TEST_DEPS) $(CUDA_DIR)/emu_backend.o
	$(GCC) -std=c99 $(WARN) $(OPT) -DTC_EMULATED -I$(CUDA_DIR) $(CUDA_TEST_SRCS) $(CUDA_DIR)/emu_backend.o -o $@ $(LIBS) -lstdc++
$(CUDA_DIR)/test_cuda_emu_asan: $(CUDA_TEST_DEPS) $(CUDA_DIR)/emu_backend_asan.o
	$(CLANG) -std=c11 $(WARN) -O1 -g $(SANITIZE) -DTC_EMULATED -I$(CUDA_DIR) $(CUDA_TEST_SRCS) $(CUDA_DIR)/emu_backend_asan.o \
	  -o $@ -fsanitize-link-c++-runtime $(LIBS) -lstdc++

$(CUDA_DIR)/cuda_emu_selftest: tests/cuda_emu_selftest.cpp tests/cuda_emu.h
	@mkdir -p $(CUDA_DIR)
	$(CXX) -std=c++17 $(WARN) -O2 -Itests $< -o $@

# The emulator's own checks first (barriers, shuffles, atomics, capture, fault injection), then
# the backend on one ISA pass (the CPU reference's kernels are the rest of the suite's business).
cuda-emu: $(CUDA_DIR)/cuda_emu_selftest $(CUDA_DIR)/test_cuda_emu $(CUDA_DIR)/test_cuda_emu_asan cuda-planted
	@./$(CUDA_DIR)/cuda_emu_selftest > $(CUDA_DIR)/cuda_emu_selftest.log 2>&1 || { cat $(CUDA_DIR)/cuda_emu_selftest.log; exit 1; }
	@echo "cuda_emu_selftest (the emulator): $$(tail -n 1 $(CUDA_DIR)/cuda_emu_selftest.log)"
	@TT_ISA=scalar ./$(CUDA_DIR)/test_cuda_emu > $(CUDA_DIR)/test_cuda_emu.log 2>&1 || { cat $(CUDA_DIR)/test_cuda_emu.log; exit 1; }
	@grep 'op graphs:' $(CUDA_DIR)/test_cuda_emu.log
	@echo "test_cuda_emu: $$(tail -n 1 $(CUDA_DIR)/test_cuda_emu.log)"
	@TT_ISA=scalar ASAN_OPTIONS=detect_leaks=1 ./$(CUDA_DIR)/test_cuda_emu_asan > $(CUDA_DIR)/test_cuda_emu_asan.log 2>&1 || \
	   { cat $(CUDA_DIR)/test_cuda_emu_asan.log; exit 1; }
	@echo "test_cuda_emu (ASan + UBSan): $$(tail -n 1 $(CUDA_DIR)/test_cuda_emu_asan.log)"

# Planted bugs: copies of tinytrace_cuda.cu with one bug each (tests/cuda_planted.sh: a missing
# __syncthreads, an off-by-one bound, a shuffle with the wrong lane); the tests must fail on each.
cuda-planted: $(CUDA_DIR)/groups.inc $(EMU_DEPS) tests/cuda_planted.sh
	@bash tests/cuda_planted.sh "$(CXX) -std=c++17 -O2 -I. -Itests" "$(GCC) -std=c99 $(OPT) -DTC_EMULATED -I$(CUDA_DIR) $(CUDA_TEST_SRCS)" \
	   "$(LIBS) -lstdc++" $(CUDA_DIR)

# nvcc: every architecture below that this nvcc offers (sm_75, sm_80, sm_90 at least), warnings as
# errors; ptxas -v prints each kernel's registers, stack and spills, and any spill fails the build.
# The benchmark's own kernel is built for sm_75 with its PTX (the driver compiles it for newer GPUs).
# -fmad=false: nvcc would contract a*b+c into an FMA where the C source has two roundings, and
# the elementwise expressions would differ from the CPU's in the last bits (the kernels' own
# fmaf() calls stay FMAs).
CUDA_ARCHS  ?= 75 80 86 89 90 100 120
NVCC_FLAGS  := -std=c++17 -O3 -fmad=false -I. -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
NVCC_GENCODE = $(foreach a,$(filter $(CUDA_ARCHS),$(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed 's/compute_//')),-gencode arch=compute_$(a),code=sm_$(a))
CUDA_LIB    := $(dir $(shell command -v $(NVCC) 2>/dev/null))../lib64
HAVE_CUBLAS := $(wildcard $(CUDA_LIB)/libcublas.so)

cuda: $(CUDA_DIR)/tinytrace_cuda.o $(CUDA_DIR)/test_cuda $(CUDA_DIR)/bench_cuda $(BUILD)/examples/11_gpu_cuda
	@bash tests/cuda_ptxas_report.sh $(CUDA_DIR)/ptxas.log
	@echo "== examples/11_gpu.c linked with the nvcc build (on a machine with no GPU it says so):"
	./$(BUILD)/examples/11_gpu_cuda

$(CUDA_DIR)/tinytrace_cuda.o: tinytrace_cuda.cu tinytrace.h
	@mkdir -p $(CUDA_DIR)
	$(NVCC) $(NVCC_FLAGS) $(NVCC_GENCODE) -Xptxas -v -c $< -o $@ 2> $(CUDA_DIR)/ptxas.log || { cat $(CUDA_DIR)/ptxas.log; exit 1; }
$(CUDA_DIR)/test_cuda: $(CUDA_TEST_DEPS) $(CUDA_DIR)/tinytrace_cuda.o
	$(CXX) -std=c++17 $(WARN) -O2 -x c++ -I$(CUDA_DIR) $(CUDA_TEST_SRCS) -x none $(CUDA_DIR)/tinytrace_cuda.o \
	  -o $@ -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart $(LIBS)
$(CUDA_DIR)/bench_cuda: bench/bench_cuda.cu bench/bench_models.h bench/bench_util.h tinytrace.h $(CUDA_DIR)/tinytrace_cuda.o
	$(NVCC) $(NVCC_FLAGS) -Xcompiler -Wno-unused-function -Ibench -arch=sm_75 $(if $(HAVE_CUBLAS),-DBENCH_CUBLAS) \
	  $< $(CUDA_DIR)/tinytrace_cuda.o -o $@ \
	  $(if $(HAVE_CUBLAS),-lcublas) -lpthread

$(BUILD)/examples/11_gpu_cuda: examples/11_gpu.c tinytrace.h $(CUDA_DIR)/tinytrace_cuda.o
	@mkdir -p $(dir $@)
	$(GCC) -std=c99 $(WARN) $(OPT) -DTT_CUDA -I. $< $(CUDA_DIR)/tinytrace_cuda.o -o $@ -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) \
	  -lcudart -lstdc++ $(LIBS)

# On a machine with an NVIDIA GPU.
test-cuda: $(CUDA_DIR)/test_cuda
	./$(CUDA_DIR)/test_cuda
bench-cuda: $(CUDA_DIR)/bench_cuda
	./$(CUDA_DIR)/bench_cuda
