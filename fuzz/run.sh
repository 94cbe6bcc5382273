#!/usr/bin/env bash
# make fuzz: runs every target of fuzz/ for SECONDS (argument, 60) with cargo fuzz on the
# nightly toolchain (not in CI), both installed when missing. New corpus entries stay in
# fuzz/corpus/<target>/ (ignored by git except the seed-* files); crashes land in
# fuzz/artifacts/<target>/ and stop the run.
set -euo pipefail
cd "$(dirname "$0")"
SECS=${1:-60}
# cargo fuzz builds with sanitizer flags only nightly accepts: install it when missing.
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: installing the nightly toolchain (rustup toolchain install nightly)"
  if ! rustup toolchain install nightly --profile minimal; then
    echo "fuzz: no nightly toolchain and rustup could not install one; cargo fuzz cannot run" \
      "on stable. Install it by hand (rustup toolchain install nightly) and run make fuzz again." >&2
    exit 2
  fi
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "fuzz: installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked || { echo "fuzz: cargo install cargo-fuzz failed" >&2; exit 2; }
fi
command -v c++ >/dev/null || { echo "fuzz: needs a C++ compiler for libFuzzer (apt-get install g++)" >&2; exit 2; }
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}
for t in $targets; do
  echo "== fuzz $t for ${SECS}s"
  mkdir -p "corpus/$t"
  cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$SECS" -max_len=4096 -rss_limit_mb=1024 2>&1 \
    | grep -E '^(#[0-9]+ +DONE|==[0-9]+==|SUMMARY|Done)|panicked|artifact' || true
  if ls "artifacts/$t"/crash-* >/dev/null 2>&1; then
    echo "fuzz: $t crashed; reproduce with: cargo +nightly fuzz run $t artifacts/$t/<crash file>" >&2
    exit 1
  fi
done
echo "fuzz: no crash"
