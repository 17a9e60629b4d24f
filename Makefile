# shapedb — one entry point.
#
#   make          build bin/shapedb
#   make run      install what is missing, build, open the tour
#   make test     install what is missing, build, run every TAP suite with prove
#   make check    the same suite under AddressSanitizer + UBSan (build/san)
#   make valgrind the same suite under valgrind memcheck
#   make bench    benchmarks (numbers, never pass/fail)
#
# Everything a fresh Debian 12 machine lacks is installed by `make deps`
# (apt-get when root; otherwise the exact command is printed and we stop).

DEBS      = gcc make pkg-config perl liblua5.4-dev libreadline-dev \
            libcmocka-dev libjansson-dev libcjson-dev zlib1g-dev libmd-dev
TEST_DEBS = tmux valgrind graphviz chromium

# `make fuzz` needs clang's libFuzzer; it installs these itself (not needed
# for make, make test or make check).
FUZZ_DEBS = clang libclang-rt-14-dev

# BUILD holds objects and binaries; `make check` uses a second tree so the
# sanitized and plain builds never mix.
BUILD   ?= build/plain
BIN     ?= bin
SAN     ?=

CC      ?= cc
CSTD     = -std=c11 -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT     ?= -O2 -g
ifneq ($(SAN),)
OPT      = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=undefined
endif
ifneq ($(FUZZ),)
OPT      = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link \
           -fno-sanitize-recover=undefined
endif
# pkg-config is only asked once deps are present (the rules below depend on
# the deps stamp); `?=`-style lazy evaluation keeps `make deps` usable first.
LUA_CFLAGS  = $(shell pkg-config --cflags-only-I lua5.4)
LUA_LIBS    = $(shell pkg-config --libs lua5.4)
RL_LIBS     = $(shell pkg-config --libs readline 2>/dev/null || echo -lreadline)
JSON_CFLAGS = $(shell pkg-config --cflags jansson libcjson)
JSON_LIBS   = $(shell pkg-config --libs jansson libcjson)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka)
# core/torch_trace.c reads gzip logs (zlib) and checks payload MD5s (libmd);
# core/jsonline.c reads its record headers and saved traces' event lines
# with cJSON (several times faster) and jansson (what cJSON would misread,
# and the reasons); saved traces are written with jansson.
CORE_LIBS   = $(JSON_LIBS) -lz -lmd

CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) -Icore -Ilua -Irepl -I$(BUILD)/gen $(CFLAGS)
LDFLAGS_ALL = $(OPT) $(LDFLAGS)

CORE_SRC = $(sort $(wildcard core/*.c))
LUA_SRC  = $(sort $(wildcard lua/*.c))
REPL_SRC = $(sort $(wildcard repl/*.c))
LUA_LIB  = $(sort $(wildcard lua/*.lua))
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))

CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
LUA_OBJ  = $(LUA_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/prelude.o
REPL_OBJ = $(REPL_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# libFuzzer targets (see "fuzzing" below)
FUZZ_NAMES  = expr cmdline torch_trace torch_trace_import trace_io jsonline
FUZZ_TIME  ?= 60
FUZZ_SMOKE  = $(FUZZ_NAMES:%=$(BUILD)/fuzz/smoke_%)
FUZZ_EXTRA_cmdline = repl/cmd.c
FUZZ_SHARED_torch_trace = examples/torch_trace
FUZZ_SHARED_torch_trace_import = examples/torch_trace
# the log readers go through a file per input: fewer mutations in make test
FUZZ_RUNS_torch_trace = 400
FUZZ_RUNS_torch_trace_import = 400
# saved traces: seeds recorded at test time from these programs (the
# driver runs $$SHAPEDB), so they always have the current format
FUZZ_RECORD_trace_io = scripts/nonzero.lua scripts/item.lua scripts/broadcast.lua scripts/ddbranch.lua
FUZZ_RUNS_trace_io = 400
SHARED_DIR ?= $(abspath ../shared)

SHAPEDB  = $(BIN)/shapedb
STAMP    = build/.deps-ok

.PHONY: all deps run test check valgrind bench clean unit fuzz fuzz-deps fuzz-run soak
all: $(SHAPEDB)

# --- dependencies -----------------------------------------------------------
deps: $(STAMP)
# install_debs LIST: apt-get the Debian packages of LIST that are missing.
install_debs = missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$missing) >/dev/null \
	      || { echo "deps: apt-get install failed:$$missing" >&2; exit 1; }; \
	  else \
	    echo "deps: missing Debian packages. Run:" >&2; \
	    echo "  sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi
$(STAMP): Makefile
	@$(call install_debs,$(DEBS) $(TEST_DEBS))
	@mkdir -p $(@D) && touch $@
fuzz-deps: build/.fuzz-deps-ok
build/.fuzz-deps-ok: Makefile | $(STAMP)
	@$(call install_debs,$(FUZZ_DEBS))
	@mkdir -p $(@D) && touch $@

# --- build -----------------------------------------------------------------
# `make V=1` shows the full compiler lines.
ifeq ($(V),1)
Q =
say = @true
else
Q = @
say = @printf '  %-6s %s\n'
endif

$(BUILD)/core/%.o: core/%.c | $(STAMP)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/lua/%.o: lua/%.c | $(STAMP)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS_ALL) $(LUA_CFLAGS) $(JSON_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/repl/%.o: repl/%.c | $(STAMP)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS_ALL) $(LUA_CFLAGS) -MMD -MP -c $< -o $@

# The Lua-side library is compiled into the binary, so bin/shapedb works
# from any directory.
$(BUILD)/gen/prelude.c: $(LUA_LIB) scripts/embed.sh
	@mkdir -p $(@D)
	$(say) EMBED "$(LUA_LIB)"
	$(Q)sh scripts/embed.sh $(LUA_LIB) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/prelude.o: $(BUILD)/gen/prelude.c
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libcore.a: $(CORE_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(SHAPEDB): $(REPL_OBJ) $(LUA_OBJ) $(BUILD)/libcore.a
	@mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LUA_LIBS) $(RL_LIBS) $(CORE_LIBS) -lm

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcore.a | $(STAMP)
	@mkdir -p $(@D)
	$(say) TEST $<
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/unit -MMD -MP -o $@ $< $(BUILD)/libcore.a $(CMOCKA_LIBS) $(CORE_LIBS) -lm

unit: $(UNIT_BIN)

# --- run, test, check --------------------------------------------------------
run: $(SHAPEDB)
	$(SHAPEDB) -i scripts/tour.lua

# One harness: prove runs C unit binaries and Lua scenario files alike
# through tests/tap-exec (which picks the runner by file type).
TEST_FILES = $(UNIT_BIN) $(FUZZ_SMOKE) $(sort $(wildcard tests/lua/*.lua)) $(sort $(wildcard tests/repl/*.sh))
test: $(SHAPEDB) $(UNIT_BIN) $(FUZZ_SMOKE)
	SHAPEDB=$(abspath $(SHAPEDB)) prove --exec $(abspath tests/tap-exec) $(TEST_FILES)

check:
	$(MAKE) --no-print-directory BUILD=build/san BIN=build/san/bin SAN=1 test

valgrind: $(SHAPEDB) $(UNIT_BIN) $(FUZZ_SMOKE)
	SHAPEDB_VALGRIND=1 SHAPEDB=$(abspath $(SHAPEDB)) prove --exec $(abspath tests/tap-exec) $(TEST_FILES)

# Benchmarks: numbers, never pass/fail, and not part of `test`. The C
# benchmark is built like a unit test against libcore.a, with this tree's
# OPT (-O2 in the plain build); tests/bench/run.sh adds the Lua end-to-end
# rows and, when python3 has sympy, the sympy baseline, and prints the
# table. `make bench BENCH_ARGS=--quick` is a seconds-long smoke run.
BENCH_BIN = $(BUILD)/bench/bench_core

# TORCH_TRACE import speed on a ~100 MiB log built from the sample logs.
BENCH_TT = $(BUILD)/bench/bench_torch_trace
$(BENCH_TT): tests/bench/bench_torch_trace.c $(BUILD)/libcore.a | $(STAMP)
	@mkdir -p $(@D)
	$(say) BENCH $<
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(BUILD)/libcore.a $(CORE_LIBS) -lm

$(BENCH_BIN): tests/bench/bench_core.c $(BUILD)/libcore.a | $(STAMP)
	@mkdir -p $(@D)
	$(say) BENCH $<
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(BUILD)/libcore.a $(CORE_LIBS) -lm

# `make test` builds the benchmarks (and does not run them), so a change
# that breaks their build is seen by the tests, not by the next bench.
test: $(BENCH_BIN) $(BENCH_TT)

bench: $(SHAPEDB) $(BENCH_BIN) $(BENCH_TT)
	@SHAPEDB_SHARED=$${SHAPEDB_SHARED:-$(abspath ..)/shared} $(BENCH_TT) $(if $(filter --quick,$(BENCH_ARGS)),5,100) > $(BUILD)/bench/torch_trace.txt
	@BENCH_TT_TXT=$(BUILD)/bench/torch_trace.txt sh tests/bench/run.sh $(BENCH_BIN) $(SHAPEDB) $(BUILD)/bench "$(CC) $(strip $(OPT))" $(BENCH_ARGS)

# --- fuzzing -------------------------------------------------------------------
# libFuzzer targets, tests/fuzz/fuzz_NAME.c, with seed corpora in
# tests/fuzz/NAME/. `make test` runs each through tests/fuzz/driver.c
# (built with $(CC), no clang needed): its seeds, then 2000 deterministic
# mutations of them, in about a second; `make check` does the same under
# ASan/UBSan. `make fuzz` builds them with clang's libFuzzer, ASan and
# UBSan (tree build/fuzz) and runs each for FUZZ_TIME seconds; new inputs
# go to build/fuzz/corpus/NAME, crashes to build/fuzz/crash-NAME-*.

$(BUILD)/fuzz/smoke_cmdline $(BUILD)/fuzz/fuzz_cmdline: repl/cmd.c

$(BUILD)/fuzz/smoke_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(FUZZ_EXTRA_$*) $(BUILD)/libcore.a | $(STAMP)
	@mkdir -p $(@D)
	$(say) FUZZ $<
	$(Q)$(CC) $(CFLAGS_ALL) $(LUA_CFLAGS) $(JSON_CFLAGS) -DFUZZ_NAME='"$*"' \
	  $(if $(FUZZ_SHARED_$*),-DFUZZ_SHARED='"$(FUZZ_SHARED_$*)"') \
	  $(if $(FUZZ_RUNS_$*),-DFUZZ_RUNS=$(FUZZ_RUNS_$*)) \
	  $(if $(FUZZ_RECORD_$*),-DFUZZ_RECORD='"$(FUZZ_RECORD_$*)"') \
	  -o $@ $< tests/fuzz/driver.c $(FUZZ_EXTRA_$*) $(BUILD)/libcore.a $(CORE_LIBS) -lm

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_EXTRA_$*) $(BUILD)/libcore.a
	@mkdir -p $(@D)
	$(say) FUZZ $<
	$(Q)$(CC) $(CFLAGS_ALL) $(LUA_CFLAGS) $(JSON_CFLAGS) -fsanitize=fuzzer \
	  -o $@ $< $(FUZZ_EXTRA_$*) $(BUILD)/libcore.a $(CORE_LIBS) -lm

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz BIN=build/fuzz/bin FUZZ=1 CC=clang fuzz-run

# One line per target: executions, corpus size, and whether it found
# anything (then the artifact's path).
fuzz-run: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
	@status=0; for n in $(FUZZ_NAMES); do \
	  mkdir -p $(BUILD)/corpus/$$n; \
	  extra=""; case $$n in torch_trace*) [ -d "$(SHARED_DIR)/examples/torch_trace" ] \
	    && extra="$(SHARED_DIR)/examples/torch_trace";; \
	  trace_io) extra=$(BUILD)/recorded; mkdir -p $$extra; \
	    for p in $(FUZZ_RECORD_trace_io); do [ -x bin/shapedb ] && bin/shapedb --batch \
	      --record $$extra/$$(basename $$p .lua).jsonl -x run $$p > /dev/null 2>&1; done;; esac; \
	  $(BUILD)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix=$(BUILD)/crash-$$n- \
	    $(BUILD)/corpus/$$n tests/fuzz/$$n $$extra > $(BUILD)/fuzz-$$n.log 2>&1 \
	    || { status=1; echo "fuzz $$n: FOUND A PROBLEM, see $(BUILD)/fuzz-$$n.log"; \
	         grep -m1 -E 'Test unit written|ERROR' $(BUILD)/fuzz-$$n.log; }; \
	  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(BUILD)/fuzz-$$n.log); \
	  printf 'fuzz %-12s %12s executions, corpus %s inputs\n' $$n "$$execs" \
	    "$$(ls $(BUILD)/corpus/$$n | wc -l)"; \
	done; exit $$status

# Many more random programs (tests/lua/randprog.lua runs 150 in make test,
# tests/repl/randreplay.sh records and replays 8): `make soak SOAK_N=20000
# SOAK_SEED=7`; the same seed replays a failure. SOAK_REPLAY_N programs
# are recorded and replayed (two debugger sessions each, live and replay).
# tests/repl/oom.sh fails every allocation of its compile in turn (every
# 13th in make test).
SOAK_N    ?= 5000
SOAK_SEED ?= 1
SOAK_REPLAY_N ?= 200
soak: $(SHAPEDB)
	SHAPEDB=$(abspath $(SHAPEDB)) RANDPROG_N=$(SOAK_N) RANDPROG_SEED=$(SOAK_SEED) \
	  RANDREPLAY_N=$(SOAK_REPLAY_N) RANDREPLAY_SEED=$(SOAK_SEED) OOM_STRIDE=1 \
	  prove -v --exec $(abspath tests/tap-exec) tests/lua/randprog.lua tests/repl/randreplay.sh \
	  tests/repl/oom.sh

clean:
	rm -rf build bin

-include $(wildcard $(BUILD)/*/*.d)
