#!/usr/bin/env bash
# Fuzz CRUDKit's JSON parser and writer with libFuzzer for a bounded time (FUZZ_SECONDS, default 60).
# Builds Fuzz/JSON/FuzzJSON.swift linked with the CRUDKitJSON module alone (the JSON layer needs only Foundation;
# built from Sources/CRUDKitJSON by .ci/fuzz-modules.sh) under AddressSanitizer, starts from the seed corpus in
# Fuzz/JSON/corpus, and fails on any crash, leak or timeout.
# New corpus entries and crash artifacts go to Fuzz/.work (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
work="Fuzz/.work/json"
mkdir -p "$work/corpus" "$work/artifacts"

source .ci/fuzz-modules.sh
fuzz_module CRUDKitJSON
echo "building the JSON fuzzer"
mapfile -t link_flags < <(fuzz_link_flags CRUDKitJSON)
swiftc "${fuzz_swift_flags[@]}" -module-name JSONFuzz "${link_flags[@]}" Fuzz/JSON/FuzzJSON.swift \
    -o "$work/fuzz-json" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)

echo "fuzzing for ${seconds} s"
status=0
"$work/fuzz-json" "$work/corpus" Fuzz/JSON/corpus \
    -max_total_time="$seconds" \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -max_len=16384 \
    -detect_leaks=1 \
    -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" \
    > "$work/fuzz.log" 2>&1 || status=$?
tail -n 25 "$work/fuzz.log"
if [ "$status" -ne 0 ]; then
    echo "fuzz-json: libFuzzer failed with status $status; artifacts in $work/artifacts" >&2
    ls -l "$work/artifacts" >&2 || true
    exit 1
fi
echo "fuzz-json: no crash, leak or timeout in ${seconds} s"
