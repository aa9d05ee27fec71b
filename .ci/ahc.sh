#!/usr/bin/env bash
# Builds and tests the AsyncHTTPClient adapter package (debug): the whole TransportContract runs against
# AsyncHTTPClientTransport. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../Transports/AsyncHTTPClient"
start=$(date +%s)
swift build --build-tests
swift test --skip-build
echo "ahc.sh: adapter package built and tested in $(( $(date +%s) - start )) s"
