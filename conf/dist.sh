#!/usr/bin/env bash
# Assembles the release bundle around a built binary: `bash conf/dist.sh BINARY [OUTDIR]`
# writes OUTDIR/limette-<version>-<arch>-<os>-<libc>.tar.gz (OUTDIR defaults to dist/) and
# prints its path. The version comes from Cargo.toml and must be the one the binary reports;
# the target is the one the binary was built for (`make dist` passes the static musl build).
# The archive is reproducible: sorted names, owner root, one fixed date, gzip without a name.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:?usage: conf/dist.sh BINARY [OUTDIR]}"
out="${2:-$root/dist}"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[ -n "$version" ] || { echo "dist: no version in Cargo.toml" >&2; exit 1; }
about="$("$bin" --version)"
first="$(printf '%s\n' "$about" | head -n 1)"
if [ "$first" != "limette $version" ]; then
  echo "dist: $bin reports '$first', Cargo.toml says $version: rebuild it" >&2
  exit 1
fi
target="$(printf '%s\n' "$about" | sed -n 's/^target: //p')"
[ -n "$target" ] || { echo "dist: $bin --version names no target" >&2; exit 1; }
# x86_64-unknown-linux-musl is named x86_64-linux-musl, as release archives usually are.
name="limette-$version-${target/-unknown-/-}"

mkdir -p "$out"
stage="$(mktemp -d "$out/.stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/conf"
install -m 0755 "$bin" "$dir/limette"
install -m 0644 "$root/conf/limette.ini" "$root/conf/lmConf-1.json" "$root/conf/nginx-tls.conf" "$dir/conf/"
install -m 0644 "$root/conf/limette.service" "$root/conf/limette.1" "$dir/"
install -m 0644 "$root/conf/bundle-README" "$dir/README"
(cd "$dir" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort \
  | xargs sha256sum > SHA256SUMS)

# The date of the last commit (or SOURCE_DATE_EPOCH) stamps every file, so that the same
# sources and binary give the same archive.
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
  -cf - "$name" | gzip -n > "$stage/$name.tar.gz"
mv "$stage/$name.tar.gz" "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
