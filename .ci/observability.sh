#!/usr/bin/env bash
# Builds and tests the observability package (debug): logging, metrics and tracing middleware through a real
# transport against LoopbackServer, the Hummingbird 2 end-to-end trace, README's sample; then the cost benchmark
# runs once as a smoke test (see .ci/package.sh). Exits non-zero on any failure.
set -euo pipefail
exec "$(dirname "$0")/package.sh" Integrations/Observability crudkit-observability-benchmarks
