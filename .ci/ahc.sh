#!/usr/bin/env bash
# Builds and tests the AsyncHTTPClient adapter package (debug): the whole TransportContract runs against
# AsyncHTTPClientTransport, README's sample runs, and the adapter benchmark runs once as a smoke test (see
# .ci/package.sh). Exits non-zero on any failure.
set -euo pipefail
exec "$(dirname "$0")/package.sh" Transports/AsyncHTTPClient crudkit-ahc-benchmarks
