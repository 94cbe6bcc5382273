# Limette: build, test, lint, run, static build, benchmarks.
CARGO ?= cargo
MUSL_TARGET := x86_64-unknown-linux-musl
# The Python virtual environment of the tests (Selenium, Authlib), made by test-tools.
VENV ?= target/venv

.PHONY: build test test-tools lint audit run static static-minimal musl-tools bench bench-hostile bench-dbi bench-tools bench-handler soak fuzz clean conformance conformance-logout screenshots startup-order

# The release and static builds carry the PostgreSQL stores (the postgres feature).
FEATURES ?= postgres

# SQLite as Limette uses it (libsqlite3-sys's bundled build reads LIBSQLITE3_FLAGS): without the
# full-text, R-tree, statistics and extension-loading modules the bundled build adds, nor the
# JSON functions, UTF-16 and tracing interfaces, authorizer, progress callback, incremental
# blobs, test hooks and the introspection pragmas, none of which Limette's tables, queries or
# bindings use (a UTF-8 database made elsewhere, SQLite's default and what LemonLDAP::NG's DBI
# modules make, opens as before, and a UTF-16 one stops start-up with an error naming the
# store; the amalgamation compiles with each, and the SQLite stores' tests run on it). About 350 KB less in every build; the tests run on the same
# SQLite as the release.
export LIBSQLITE3_FLAGS ?= -USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS \
	-USQLITE_ENABLE_FTS5 -USQLITE_ENABLE_RTREE -USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_ENABLE_STAT4 \
	-USQLITE_ENABLE_LOAD_EXTENSION -USQLITE_SOUNDEX -DSQLITE_OMIT_LOAD_EXTENSION \
	-DSQLITE_OMIT_DEPRECATED -DSQLITE_OMIT_SHARED_CACHE -DSQLITE_OMIT_COMPLETE \
	-DSQLITE_OMIT_TCL_VARIABLE -DSQLITE_OMIT_GET_TABLE -DSQLITE_DEFAULT_MEMSTATUS=0 \
	-DSQLITE_OMIT_JSON -DSQLITE_OMIT_COMPILEOPTION_DIAGS -DSQLITE_OMIT_UTF16 -DSQLITE_OMIT_TRACE \
	-DSQLITE_OMIT_PROGRESS_CALLBACK -DSQLITE_UNTESTABLE -DSQLITE_OMIT_AUTHORIZATION \
	-DSQLITE_OMIT_INTROSPECTION_PRAGMAS -DSQLITE_OMIT_INCRBLOB

# The release builds link through conf/link-gcc: LLVM's linker from the Rust toolchain, with the
# functions of start-up and the common requests placed first (conf/startup-order.txt, made by
# `make startup-order`), so that an idle Limette maps a fraction of its code.
LINK_ENV := CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$(abspath conf/link-gcc)"

build:
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)"

# The tests need system tools (Chromium, LemonLDAP::NG's packages, slapd, nginx, Perl modules,
# openssl, curl) and a Python virtual environment: test-tools installs what is missing when run
# as root, and otherwise names the packages and stops (.ci/setup.d/all).
#
# The integration tests are one binary (tests/suite/main.rs). Most of its tests wait (on the
# binary under test, on headless Chromium, on the Python checks) rather than compute, so the
# first pass runs TEST_THREADS of them at once, more than the machine has cores: the slow
# browser and logout checks overlap with the rest instead of running last. The hostile tests
# measure latencies under attack (a p99 under 100 ms): tests beside them on the same cores
# would be part of what they measure, so the second pass runs them alone, as many at once as
# there are cores. Both passes always run; make fails if either failed.
TEST_THREADS ?= 8
TEST_ENV = LIMETTE_TEST_PYTHON="$(abspath $(VENV))/bin/python3"
test: test-tools
	rc=0; \
	$(TEST_ENV) $(CARGO) test --features "$(FEATURES)" --no-fail-fast \
		-- --test-threads=$(TEST_THREADS) --skip hostile:: || rc=1; \
	$(TEST_ENV) $(CARGO) test --features "$(FEATURES)" --no-fail-fast --test suite hostile:: || rc=1; \
	exit $$rc

test-tools:
	@LIMETTE_VENV="$(abspath $(VENV))" bash .ci/setup.d/all

# Every portal and console page in headless Chromium, English and French, saved at 1280 and 360 px
# wide into target/screenshots/ for review (tests/browser/pages.py, and editor.py for the
# configuration editor's pages; the same runs check them).
screenshots: test-tools
	LIMETTE_TEST_PYTHON="$(abspath $(VENV))/bin/python3" LIMETTE_SCREENSHOTS="$(abspath target/screenshots)" \
		$(CARGO) test --test suite -- browser::every_page_in_both_languages browser::editor
	@ls target/screenshots | wc -l | xargs echo "screenshots in target/screenshots:"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets --features "$(FEATURES)" -- -D warnings

# Cargo.lock against the RustSec advisory snapshot (ADVISORY_DB, default ../shared/advisory-db;
# no network), failing on any advisory not accepted with a reason in .ci/advisories-accepted.
# Installs cargo-audit from crates.io when it is missing (.ci/audit.sh).
audit:
	bash .ci/audit.sh

run:
	$(LINK_ENV) $(CARGO) run --release --features "$(FEATURES)"

# The static binary inlines less than opt-level 3's default (LLVM's threshold 50 instead of
# 250): about 570 KB smaller, which keeps it within its 6 MiB budget; the JSON login costs
# about a tenth more, GET / nothing (docs/benchmarks.md, "The size budget after round four").
STATIC_ENV := CC_x86_64_unknown_linux_musl=musl-gcc \
	CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER="$(abspath conf/link-gcc)" \
	CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C relocation-model=static -C target-feature=+crt-static -C llvm-args=-inline-threshold=50"

static: musl-tools
	$(STATIC_ENV) $(CARGO) build --release --features "$(FEATURES)" --target $(MUSL_TARGET)
	@ls -l target/$(MUSL_TARGET)/release/limette
	@file target/$(MUSL_TARGET)/release/limette 2>/dev/null || true

# The static binary without the PostgreSQL stores (File, SQLite and REST only), in its
# own target folder: the appliance build whose size `make bench` reports beside the full one.
static-minimal: musl-tools
	$(STATIC_ENV) $(CARGO) build --release --target $(MUSL_TARGET) --target-dir target/minimal
	@ls -l target/minimal/$(MUSL_TARGET)/release/limette

# Writes conf/startup-order.txt (conf/startup-order.sh: the functions run at start-up and by
# the common requests, recorded by valgrind's callgrind on a build with symbols).
startup-order: musl-tools
	bash conf/startup-order.sh

musl-tools:
	@rustup target list --installed | grep -q $(MUSL_TARGET) || rustup target add $(MUSL_TARGET)
	@command -v musl-gcc >/dev/null || (apt-get update -qq && apt-get install -y -qq musl-tools)

# The release bundle dist/limette-<version>-x86_64-linux-musl.tar.gz around the static binary:
# configuration, systemd unit, manual page, README and SHA256SUMS (conf/dist.sh).
.PHONY: dist
dist: static
	bash conf/dist.sh target/$(MUSL_TARGET)/release/limette dist

# The OpenID Foundation's OP test tool (oidctest 0.8.2, in its own virtual environment) against
# a release build on loopback, then the project's own logout checks: writes
# target/conformance/summary.md, fails when an applicable test does not pass
# (tests/conformance/run.sh; docs/oidc.md, Conformance). Needs the tool's test definitions in
# OIDCTEST_FLOWS. CONFORMANCE_SUBSET=ci runs the part CI runs (Basic, Dynamic, Config and Form
# Post, one client of each algorithm).
CONFORMANCE_SUBSET ?= all
conformance: test-tools
	CONFORMANCE_SUBSET=$(CONFORMANCE_SUBSET) bash tests/conformance/run.sh

# The logout profiles' own checks alone (tests/conformance/checks/*.py, which `make conformance`
# runs too): Front-Channel, Back-Channel, Session Management and RP-Initiated Logout 1.0 against
# a release build, each script on its own instance on loopback (docs/oidc.md, Logout conformance).
conformance-logout: test-tools
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette
	@rc=0; for c in tests/conformance/checks/*.py; do \
		"$(VENV)/bin/python3" "$$c" --limette target/release/limette || rc=1; done; exit $$rc

# Benchmarks against the bare tiny_http ceiling, the glibc build and the static one side by
# side (bench/run.sh; docs/benchmarks.md).
bench: bench-tools static static-minimal
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette --example ceiling --example head_parsers --example hash_cost
	bash bench/run.sh
	BENCH_APPEND=1 bash bench/two_nodes.sh

# The hostile part of make bench alone, on a release build: each attack on a fresh instance
# with the shipped limits while a user is timed; writes bench/RESULTS-hostile.md.
# The handler endpoint beside LemonLDAP::NG's own handler, both behind nginx
# (bench/handler_llng.sh; needs .ci/setup.d/handler.sh's packages).
bench-handler: bench-tools
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette
	bash bench/handler_llng.sh

bench-hostile: bench-tools
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette
	BENCH_ONLY=hostile bash bench/run.sh

# The logins on the DBI user store alone, one row a hash family on SQLite and on PostgreSQL,
# against each hash alone (bench/dbi.sh); writes bench/RESULTS-dbi.md.
bench-dbi: bench-tools
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette --example hash_cost
	BENCH_ONLY=dbi bash bench/run.sh

# 64 connections of mixed traffic for 60 s, then the hostile scenario: slow bodies, slow
# headers and idle connections from 127.0.0.2 and .3 while a user at 127.0.0.1 is timed
# (bench/hostile.sh; not in CI, whose short version is tests/suite/hostile/soak.rs).
soak: bench-tools
	$(LINK_ENV) $(CARGO) build --release --features "$(FEATURES)" --bin limette
	bash bench/soak.sh
	bash bench/hostile.sh

bench-tools:
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	@command -v curl >/dev/null || (apt-get update -qq && apt-get install -y -qq curl)

# Fuzz the hand-written parsers (cargo fuzz, nightly; not in CI). FUZZ_SECONDS per target;
# fuzz/run.sh installs cargo-fuzz and the nightly toolchain when they are missing.
FUZZ_SECONDS ?= 60
fuzz:
	bash fuzz/run.sh $(FUZZ_SECONDS)

clean:
	$(CARGO) clean
