# clustersim build.
#
#   make            build build/clustersim
#   make run        install missing packages, build, run experiments/default.json
#   make test       install missing packages, build and run the Criterion suite
#   make bench      the benchmark table (bench/bench.sh)
#   make SANITIZE=address,undefined test    the suite under sanitizers
#   make WERROR=1   warnings are errors (CI sets this)
#   make install    the binary, man page, bash completion, plot scripts,
#                   plug-in headers and clustersim.pc under PREFIX
#                   (/usr/local), below DESTDIR when given; make uninstall
#
# Policies are discovered: every policies/*.c (job policies) and
# policies/score/*.c (score plugins) is compiled in and registered under
# its file stem.  Adding a file is the only edit.  They are compiled with
# include/ alone on the include path, as a plug-in would be.

CC       ?= cc
OPT      ?= -O2
SANITIZE ?=
WERROR   ?=

PKGS     := gsl libcjson nettle clp cbc
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# WARN_CXX: the same for the one file the host C++ compiler builds.
WARN_CXX := -Wall -Wextra -Wshadow -Wpointer-arith -Wformat=2 -Wvla \
            -Wno-unused-parameter
WARN     := $(WARN_CXX) -Wstrict-prototypes -Wmissing-prototypes
ifneq ($(WERROR),)
WARN     += -Werror
WARN_CXX += -Werror
endif

BUILD    := build
ifneq ($(SANITIZE),)
BUILD    := build/san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

CPPFLAGS += -Iinclude -Isim -I$(BUILD)/gen -D_GNU_SOURCE
CFLAGS   += -std=c11 $(OPT) -g $(WARN) $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS  += $(SANFLAGS) -rdynamic
LDLIBS   += $(PKG_LIBS) -lcsv -lz -lm -ldl -lpthread

# The Open MPI sweep driver (sim/sweep/sweep_mpi.c) is built when mpicc is found.
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
CPPFLAGS += -DHAVE_MPI $(shell $(MPICC) --showme:compile 2>/dev/null)
LDLIBS   += $(shell $(MPICC) --showme:link 2>/dev/null)
endif
# The CUDA evaluator backend (sim/eval/eval_cuda.cu) is built when nvcc is on
# PATH or in CUDA_HOME; CUDA=0 leaves it out.  Without it (or without a
# device at run time) the CPU backend runs.
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
CUDA     ?= $(if $(NVCC),1,0)
NVFLAGS  := -O2 -std=c++17 -fmad=false -Xcompiler -fPIC \
            -gencode arch=compute_80,code=sm_80 \
            -gencode arch=compute_90,code=sm_90 \
            -gencode arch=compute_90,code=compute_90
ifeq ($(CUDA),1)
CPPFLAGS += -DCLUSTERSIM_HAVE_CUDA
CUDA_OBJ := $(BUILD)/sim/eval/eval_cuda.o
LDLIBS   += -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -lstdc++
endif

# The CUDA backend's sources (nvcc and the host build compile the same).
EVAL_CU  := sim/eval/eval_cuda.cu sim/eval/eval_backend.h sim/eval/eval_steps.h \
            sim/eval/eval_decode.h sim/eval/eval_pooled.h
LIB_SRC  := $(filter-out sim/cli/main.c,$(wildcard sim/*/*.c))
POL_SRC  := $(sort $(wildcard policies/*.c))
POLICIES := $(basename $(notdir $(POL_SRC)))
SCORE_SRC := $(sort $(wildcard policies/score/*.c))
SCORES   := $(basename $(notdir $(SCORE_SRC)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(POL_SRC:%.c=$(BUILD)/%.o) \
            $(SCORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/policy_registry.o \
            $(BUILD)/gen/score_registry.o $(CUDA_OBJ)
TEST_SRC := $(sort $(wildcard tests/test_*.c)) tests/testlib.c \
            $(sort $(wildcard tests/fuzz/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

BIN      := $(BUILD)/clustersim
LIB      := $(BUILD)/libclustersim.a
TESTBIN  := $(BUILD)/tests/run_tests
PLUGIN   := $(BUILD)/plugin/example_plugin.so
BADPLUGIN := $(BUILD)/plugin/bad_abi_plugin.so \
             $(BUILD)/plugin/short_table_plugin.so
SCOREPLUGINS := $(BUILD)/plugin/example_score.so \
                $(BUILD)/plugin/bad_score_plugin.so \
                $(BUILD)/plugin/clash_score_plugin.so \
                $(BUILD)/plugin/clash_plugin.so
# A policy that aborts on demand: a sweep's crashed run (tests/test_sweep_fail.c).
BADPLUGIN += $(BUILD)/plugin/crash_plugin.so

.PHONY: all deps run test check-tests bench docs-figures clean plugin-example install \
        uninstall python
all: $(BIN)

deps:
	@scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Built-in policies and score plugins see include/ only: the policy
# contract is all they may use (scripts/check-layers.sh checks it too).
POL_CPPFLAGS := -Iinclude -D_GNU_SOURCE
POL_CFLAGS   := $(filter-out $(PKG_CFLAGS),$(CFLAGS))
$(BUILD)/policies/%.o: policies/%.c
	@mkdir -p $(dir $@)
	$(CC) $(POL_CPPFLAGS) $(POL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/sim/eval/eval_cuda.o: $(EVAL_CU)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Isim -c $< -o $@

# The CUDA backend's host build: the same sim/eval/eval_cuda.cu compiled by the
# C++ compiler against tests/cuda_host.h (kernels run on the host, thread
# after thread) and eval.c with the CUDA switch on, linked with the
# parity tests into a second runner.  It needs neither nvcc nor a device,
# so the backend's code is tested everywhere (tests/test_cuda_parity.c).
CUDAHOST     := $(BUILD)/cuda-host
CUDAHOST_BIN := $(BUILD)/tests/run_cuda_host
$(CUDAHOST)/eval_cuda.o: $(EVAL_CU) tests/cuda_host.h
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++17 $(OPT) -g $(WARN_CXX) $(SANFLAGS) \
	  -DEVAL_CUDA_HOST -Isim -Itests -c $< -o $@
$(CUDAHOST)/eval.o: sim/eval/eval.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DCLUSTERSIM_HAVE_CUDA $(CFLAGS) -MMD -MP -c $< -o $@
$(CUDAHOST_BIN): $(BUILD)/tests/test_cuda_parity.o $(BUILD)/tests/testlib.o \
		$(CUDAHOST)/eval.o $(CUDAHOST)/eval_cuda.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion -lstdc++

# `make gpu-check`: one program needing only the CUDA toolkit, with the
# Random123 headers carried in build/gpu-check/include (the GPU machine
# has none of our Debian packages): CPU-vs-CUDA parity and evaluations/s.
R123_INC ?= /usr/include/Random123
GPUCHK   := build/gpu-check
.PHONY: gpu-check gpu-check-build
gpu-check-build: $(GPUCHK)/gpu_check
$(GPUCHK)/gpu_check: bench/gpu_check.cu $(EVAL_CU)
	@test -n "$(NVCC)" || { echo "gpu-check: nvcc not found" >&2; exit 1; }
	@mkdir -p $(GPUCHK)/include
	@test -d $(GPUCHK)/include/Random123 || cp -r $(R123_INC) $(GPUCHK)/include/
	$(NVCC) $(NVFLAGS) -Isim -isystem $(GPUCHK)/include -o $@ bench/gpu_check.cu
gpu-check: gpu-check-build
	$(GPUCHK)/gpu_check
# The same program against the host stand-in, which `make test` runs on
# small populations so that it is known to work before a device runs it.
GPUCHK_HOST := $(BUILD)/tests/gpu_check_host
$(GPUCHK_HOST): bench/gpu_check.cu $(EVAL_CU) tests/cuda_host.h
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++17 $(OPT) -g $(WARN_CXX) $(SANFLAGS) \
	  -DEVAL_CUDA_HOST -Isim -Itests -o $@ $<

# The registry is regenerated whenever the set of policy files changes.
$(BUILD)/gen/policies.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(POLICIES)' | cmp -s - $@ || echo '$(POLICIES)' > $@
$(BUILD)/gen/policy_registry.c: $(BUILD)/gen/policies.list
	@scripts/gen-registry.sh policy $(POLICIES) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/policy_registry.o: $(BUILD)/gen/policy_registry.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/gen/scores.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SCORES)' | cmp -s - $@ || echo '$(SCORES)' > $@
$(BUILD)/gen/score_registry.c: $(BUILD)/gen/scores.list
	@scripts/gen-registry.sh score $(SCORES) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/score_registry.o: $(BUILD)/gen/score_registry.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
FORCE:
# The source revision for the manifest: rewritten only when it changes, and
# included by sim/base/version.c alone, so a commit recompiles one file.
$(BUILD)/gen/revision.h: FORCE
	@scripts/gen-revision.sh $@
$(BUILD)/sim/base/version.o: $(BUILD)/gen/revision.h

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/sim/cli/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< -Wl,--whole-archive $(LIB) -Wl,--no-whole-archive $(LDLIBS)

$(TESTBIN): $(TEST_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) -Wl,--whole-archive $(LIB) -Wl,--no-whole-archive $(LDLIBS) -lcriterion

run: deps
	$(MAKE) $(BIN)
	$(BIN) run experiments/default.json

test: deps
	$(MAKE) $(BIN) $(TESTBIN) $(CUDAHOST_BIN) $(GPUCHK_HOST) $(PLUGIN) \
	  $(BADPLUGIN) $(SCOREPLUGINS) $(if $(SANITIZE),,$(PYLIB))
	scripts/check-layers.sh $(BUILD)
	scripts/check-sizes.sh
	MAKE='$(MAKE)' scripts/check-install.sh $(BIN)
	CLUSTERSIM_BIN=$(BIN) CLUSTERSIM_PLUGIN_SO=$(PLUGIN) $(TESTBIN)
	$(CUDAHOST_BIN)
	$(GPUCHK_HOST) 1000
	$(if $(SANITIZE),,CLUSTERSIM_LIB=$(PYLIB) $(PYTHON) tests/python/test_env.py)
	$(if $(SANITIZE),,CLUSTERSIM_LIB=$(PYLIB) CLUSTERSIM_BIN=$(BIN) $(PYTHON) tests/python/test_rl_agent.py)

# The Python binding (python/clustersim/, docs/rl.md) loads this shared
# library with ctypes: the library's objects again, position-independent,
# under build/pic/ (the static build is left as it is), without the CUDA
# backend (the batch evaluator runs on the CPU pool there).
PYTHON   ?= /usr/bin/python3
PIC      := build/pic
PYLIB    := $(PIC)/libclustersim.so
PIC_CPPFLAGS := $(filter-out -DCLUSTERSIM_HAVE_CUDA -I$(BUILD)/gen,$(CPPFLAGS)) \
                -I$(BUILD)/gen
PIC_LDLIBS := $(filter-out -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -lstdc++,$(LDLIBS))
PIC_OBJ  := $(LIB_SRC:%.c=$(PIC)/%.o) $(POL_SRC:%.c=$(PIC)/%.o) \
            $(SCORE_SRC:%.c=$(PIC)/%.o) $(PIC)/gen/policy_registry.o \
            $(PIC)/gen/score_registry.o
python: $(PYLIB)
$(PIC)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(PIC)/policies/%.o: policies/%.c
	@mkdir -p $(dir $@)
	$(CC) $(POL_CPPFLAGS) $(POL_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(PIC)/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@
$(PIC)/sim/base/version.o: $(BUILD)/gen/revision.h
$(PYLIB): $(PIC_OBJ)
	$(CC) -shared $(SANFLAGS) -o $@ $^ $(PIC_LDLIBS)

# Plug-ins built out of tree, as a user would: used by the plug-in tests.
$(BUILD)/plugin/%.so: tests/plugin/%.c include/clustersim/*.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra $(if $(WERROR),-Werror) -Iinclude -fPIC -shared \
	  -DCLUSTERSIM_PLUGIN -o $@ $<

bench: deps
	$(MAKE) $(BIN) $(BUILD)/bench/env_bench $(PYLIB)
	bench/bench.sh $(BIN)

# Environment steps per second in C (bench/env_bench.c; a row of make bench).
$(BUILD)/bench/env_bench: bench/env_bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--whole-archive \
	  $(LIB) -Wl,--no-whole-archive $(LDLIBS)

# Every figure of clustersim's results that README.md, experiments/README.md
# and docs/ quote, rerun from the shipped experiments and rewritten in
# place (scripts/docs-figures.sh; minutes; figures whose traces are missing
# are skipped, saying so).  make test checks the make-run table.
docs-figures: deps
	$(MAKE) $(BIN)
	CLUSTERSIM_BIN=$(BIN) scripts/docs-figures.sh

# Fuzzing (tests/fuzz/README.md).  `make fuzz` builds build/fuzz/fuzz_<name>
# with clang's libFuzzer (+ ASan, UBSan) from each tests/fuzz/fuzz_<name>.c
# and runs each for FUZZ_SECONDS on a copy of tests/fuzz/corpus/<name>/ (so
# the committed corpus never grows by itself).  A crash, leak or broken
# invariant stops it and leaves the input in build/fuzz/<name>-crash-*.
#   longer:        make fuzz FUZZ_SECONDS=3600
#   one harness:   make fuzz FUZZ_NAMES=csv
#   more options:  make fuzz FUZZ_ARGS='-jobs=4 -workers=4'
#   replay a file: build/fuzz/fuzz_csv build/fuzz/csv-crash-...
#   the campaign:  make fuzz-campaign FUZZ_CAMPAIGN_SECONDS=1800  (split
#                  over FUZZ_NAMES; prints executions and coverage of each)
# To keep a finding: fix the bug, copy the input into tests/fuzz/corpus/<name>/
# under a name that says what it is; `make test` replays it from then on.
# To fold new coverage into the corpus, minimised:
#   build/fuzz/fuzz_csv -merge=1 tests/fuzz/corpus/csv build/fuzz/corpus/csv
# The fuzz build has no CUDA backend (the batch evaluator runs on the CPU
# pool: clang does not link the nvcc objects, and fuzzing needs no device),
# so it builds the same with or without nvcc.  The policies and their
# generated tables are compiled in for fuzz_sim.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_NAMES   ?= swf csv exp philly tiresias gavel shockwave openb sim pollux
FUZZ_ARGS    ?=
FUZZ_CAMPAIGN_SECONDS ?= 1800
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_CPPFLAGS := $(filter-out -DCLUSTERSIM_HAVE_CUDA,$(CPPFLAGS))
FUZZ_CFLAGS  := -std=c11 -O1 -g $(WARN) $(FUZZ_SAN) $(PKG_CFLAGS)
# (clang, unlike gcc, warns on a `{ NULL }` end of a parameter table)
FUZZ_POL_CFLAGS := -std=c11 -O1 -g $(WARN) -Wno-missing-field-initializers \
                   $(FUZZ_SAN)
FUZZ_LDLIBS  := $(filter-out -L$(CUDA_HOME)/lib64 -lcudart_static,$(LDLIBS))
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o) \
                $(POL_SRC:%.c=$(FUZZ_DIR)/obj/%.o) \
                $(SCORE_SRC:%.c=$(FUZZ_DIR)/obj/%.o) \
                $(FUZZ_DIR)/obj/gen/policy_registry.o \
                $(FUZZ_DIR)/obj/gen/score_registry.o
.SECONDARY: $(FUZZ_DIR)/obj/tests/fuzz/fuzzlib.o

.PHONY: fuzz fuzz-build fuzz-campaign
fuzz-build: $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
	  rm -rf $(FUZZ_DIR)/corpus/$$n && mkdir -p $(FUZZ_DIR)/corpus && \
	  cp -r tests/fuzz/corpus/$$n $(FUZZ_DIR)/corpus/$$n || exit 1; \
	  dict=; [ -f tests/fuzz/$$n.dict ] && dict=-dict=tests/fuzz/$$n.dict; \
	  echo "fuzz_$$n: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz_$$n $$dict -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=10 -artifact_prefix=$(FUZZ_DIR)/$$n- $(FUZZ_ARGS) \
	    $(FUZZ_DIR)/corpus/$$n || exit 1; \
	done
fuzz-campaign: fuzz-build
	tests/fuzz/campaign.sh $(FUZZ_CAMPAIGN_SECONDS) "$(FUZZ_ARGS)" $(FUZZ_NAMES)

# The compiler and flags of the fuzz objects: when they change (CUDA found
# or gone, another clang), every object is rebuilt.
$(FUZZ_DIR)/flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS)' | cmp -s - $@ || \
	  echo '$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS)' > $@
$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_DIR)/flags
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP \
	  -c $< -o $@
# Policies see include/ only, as in the main build.
$(FUZZ_DIR)/obj/policies/%.o: policies/%.c $(FUZZ_DIR)/flags
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(POL_CPPFLAGS) $(FUZZ_POL_CFLAGS) -fsanitize=fuzzer-no-link \
	  -MMD -MP -c $< -o $@
$(FUZZ_DIR)/obj/gen/%.o: $(BUILD)/gen/%.c $(FUZZ_DIR)/flags
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
	  -c $< -o $@
$(FUZZ_DIR)/obj/sim/base/version.o: $(BUILD)/gen/revision.h
$(FUZZ_DIR)/libsim.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/obj/tests/fuzz/fuzzlib.o \
		    $(FUZZ_DIR)/libsim.a
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  -DFUZZ_TARGET_$(shell echo $* | tr a-z A-Z) -o $@ $^ $(FUZZ_LDLIBS)

# Installation (README.md, "Install").  The plot scripts go to
# share/clustersim/plots, where the binary looks beside its folder.
PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := $(shell sed -n 's/.*CLUSTERSIM_VERSION "\(.*\)"/\1/p' \
              sim/base/version.h)
I_BIN    := $(DESTDIR)$(PREFIX)/bin
I_MAN    := $(DESTDIR)$(PREFIX)/share/man/man1
I_COMP   := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
I_PLOTS  := $(DESTDIR)$(PREFIX)/share/clustersim/plots
I_INC    := $(DESTDIR)$(PREFIX)/include/clustersim
I_PC     := $(DESTDIR)$(PREFIX)/lib/pkgconfig
PLOT_FILES := $(shell cd plots && find . -name '*.gp' | sort)

install: $(BIN)
	install -d $(I_BIN) $(I_MAN) $(I_COMP) $(I_INC) $(I_PC)
	install -m 755 $(BIN) $(I_BIN)/clustersim
	install -m 644 docs/clustersim.1 $(I_MAN)/clustersim.1
	install -m 644 scripts/clustersim.bash $(I_COMP)/clustersim
	install -m 644 include/clustersim/*.h $(I_INC)/
	for f in $(PLOT_FILES); do \
	  install -D -m 644 plots/$$f $(I_PLOTS)/$$f || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  clustersim.pc.in >$(I_PC)/clustersim.pc

uninstall:
	rm -f $(I_BIN)/clustersim $(I_MAN)/clustersim.1 \
	  $(I_COMP)/clustersim $(I_PC)/clustersim.pc
	rm -f $(addprefix $(I_INC)/,$(notdir $(wildcard include/clustersim/*.h)))
	rm -rf $(DESTDIR)$(PREFIX)/share/clustersim
	-rmdir $(I_INC) 2>/dev/null

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
