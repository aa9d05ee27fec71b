#!/usr/bin/env bash
# Builds and tests the observability package (debug): logging, metrics and tracing middleware through a real
# transport against LoopbackServer, the Hummingbird 2 end-to-end trace, README's sample; then the cost benchmark
# runs once as a smoke test. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../Integrations/Observability"
start=$(date +%s)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift build --build-tests 2>&1 | tee "$log"
# Warnings as errors for the package's own code only (as .ci/ahc.sh does): `-warnings-as-errors` on the command
# line would rebuild Hummingbird and SwiftNIO with it, and a package flag would stop users depending on it. CI
# builds from a clean clone, so every file of the package is compiled and its warnings printed.
own_warnings=$(grep -E "^$(pwd)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$own_warnings" ]; then
    echo "observability.sh: warnings in the package's own code (treated as errors):" >&2
    echo "$own_warnings" >&2
    exit 1
fi
swift test --skip-build
# The cost benchmark, smoke run (debug build, a few rounds): it must run end to end; its figures are meaningful
# only from `swift run -c release crudkit-observability-benchmarks` (see README, On Linux servers).
swift run --skip-build crudkit-observability-benchmarks --smoke
echo "observability.sh: observability package built and tested in $(( $(date +%s) - start )) s"
