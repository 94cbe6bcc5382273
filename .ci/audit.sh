#!/usr/bin/env bash
# make audit: Cargo.lock against the RustSec advisory snapshot ADVISORY_DB (no network), with
# the accepted advisories of .ci/advisories-accepted (each with its reason) ignored. Installs
# cargo-audit from crates.io when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
db="${ADVISORY_DB:-../shared/advisory-db}"
accepted=.ci/advisories-accepted
[ -d "$db/crates" ] || { echo "audit: no advisory database at $db (set ADVISORY_DB)" >&2; exit 1; }
# Built without optimisation: it reads one lockfile and a folder of small files, and an
# unoptimised build compiles faster on a fresh machine.
command -v cargo-audit >/dev/null || cargo install cargo-audit --locked --debug --quiet
ignores=()
while read -r id reason; do
  case "$id" in ''|'#'*) continue ;; esac
  [ -n "$reason" ] || { echo "audit: $accepted: $id is accepted without a reason" >&2; exit 1; }
  ignores+=(--ignore "$id")
done < "$accepted"
cargo audit --db "$db" --no-fetch --stale --deny warnings "${ignores[@]}" --file Cargo.lock
