#!/usr/bin/env bash
# Builds and tests the AsyncHTTPClient adapter package (debug): the whole TransportContract runs against
# AsyncHTTPClientTransport, README's sample runs, and the adapter benchmark runs once as a smoke test.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../Transports/AsyncHTTPClient"
start=$(date +%s)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift build --build-tests 2>&1 | tee "$log"
# Warnings as errors for the adapter's own code only: `-warnings-as-errors` on the command line would rebuild
# AsyncHTTPClient and SwiftNIO with it (about 10 minutes more), and a package flag would stop users depending on
# the adapter. CI builds from a clean clone, so every file of the adapter is compiled and its warnings printed.
own_warnings=$(grep -E "^$(pwd)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$own_warnings" ]; then
    echo "ahc.sh: warnings in the adapter's own code (treated as errors):" >&2
    echo "$own_warnings" >&2
    exit 1
fi
swift test --skip-build
# The adapter's benchmark, smoke run (debug build, a few requests per client): it must run end to end; its
# figures are meaningful only from `swift run -c release crudkit-ahc-benchmarks` (see README, On Linux servers).
swift run --skip-build crudkit-ahc-benchmarks --smoke
echo "ahc.sh: adapter package built and tested in $(( $(date +%s) - start )) s"
