#!/usr/bin/env bash
# Builds and tests the AsyncHTTPClient adapter package (debug): the whole TransportContract runs against
# AsyncHTTPClientTransport, README's sample runs, and the adapter benchmark runs once as a smoke test.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../Transports/AsyncHTTPClient"
start=$(date +%s)
swift build --build-tests
swift test --skip-build
# The adapter's benchmark, smoke run (debug build, a few requests per client): it must run end to end; its
# figures are meaningful only from `swift run -c release crudkit-ahc-benchmarks` (see README, On Linux servers).
swift run --skip-build crudkit-ahc-benchmarks --smoke
echo "ahc.sh: adapter package built and tested in $(( $(date +%s) - start )) s"
