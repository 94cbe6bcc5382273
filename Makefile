# Limette: build, test, lint, run, static build, benchmarks.
CARGO ?= cargo
MUSL_TARGET := x86_64-unknown-linux-musl

.PHONY: build test lint run static bench soak fuzz clean

build:
	$(CARGO) build --release

test:
	$(CARGO) test

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

run:
	$(CARGO) run --release

static:
	@rustup target list --installed | grep -q $(MUSL_TARGET) || rustup target add $(MUSL_TARGET)
	@command -v musl-gcc >/dev/null || (apt-get update -qq && apt-get install -y -qq musl-tools)
	CC_x86_64_unknown_linux_musl=musl-gcc CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C relocation-model=static -C target-feature=+crt-static" $(CARGO) build --release --target $(MUSL_TARGET)
	@ls -l target/$(MUSL_TARGET)/release/limette
	@file target/$(MUSL_TARGET)/release/limette 2>/dev/null || true

clean:
	$(CARGO) clean
