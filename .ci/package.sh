#!/usr/bin/env bash
# Builds and tests one package of the repository that has dependencies of its own (debug), the way CI checks each:
#
#   .ci/package.sh <folder> <benchmark product>
#
# 1. `swift build --build-tests`, failing on a warning in the package's own code (Sources/, Tests/):
#    `-warnings-as-errors` on the command line would rebuild its dependencies (AsyncHTTPClient, SwiftNIO,
#    Hummingbird) with it, and a package flag would stop users depending on it. CI builds from a clean clone, so every
#    file of the package is compiled and its warnings printed.
# 2. `swift test`.
# 3. The package's benchmark, as a smoke run (`--smoke`, a few requests): it must run end to end; its figures mean
#    something only from a release build (see README).
# Exits non-zero on any failure.
set -euo pipefail
folder="$1"
benchmark="$2"
name="$(basename "$folder")"
cd "$(dirname "$0")/../$folder"
start=$(date +%s)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift build --build-tests 2>&1 | tee "$log"
own_warnings=$(grep -E "^$(pwd)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$own_warnings" ]; then
    echo "package.sh: warnings in $name's own code (treated as errors):" >&2
    echo "$own_warnings" >&2
    exit 1
fi
swift test --skip-build
swift run --skip-build "$benchmark" --smoke
echo "package.sh: $folder built and tested in $(( $(date +%s) - start )) s"
