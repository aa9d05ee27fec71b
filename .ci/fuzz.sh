#!/usr/bin/env bash
# Builds and runs every libFuzzer target for a bounded time, each under AddressSanitizer with leak detection.
#
#   .ci/fuzz.sh                  # every target, FUZZ_SECONDS (default 60) each
#   FUZZ_SECONDS=10 .ci/fuzz.sh encoding
#
# Targets: Fuzz/<Name>/Fuzz<Name>.swift linked with the CRUDKit modules it needs (built from their folders by
# .ci/fuzz-modules.sh: the encodings need CRUDKitCore and CRUDKitHTTP; the response handling goes through the whole
# client), and the JSON fuzzer (CRUDKitJSON alone) through .ci/fuzz-json.sh. Each run starts from the seed corpus
# kept in the repo (Fuzz/<Name>/corpus, never written to) and a
# scratch corpus under .build-fuzz/<name>/ (git-ignored), where crash, leak, timeout and OOM artifacts also go.
# Fails when any target crashes, leaks, times out on one input (10 s), exceeds 2 GB or does not build. Prints one
# summary line per target: `FUZZ <name>: status=ok runs=… cov=… ft=… corpus=… seconds=…`.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no # the Swift backtracer and libFuzzer's own crash handling get in each other's way

seconds="${FUZZ_SECONDS:-60}"
root=".build-fuzz"

# The modules each target links, lowest first (each module is built once, then linked by every target that needs it).
modules_encoding=(CRUDKitCore CRUDKitHTTP)
modules_response=(CRUDKitCore CRUDKitFuture CRUDKitJSON CRUDKitHTTP CRUDKit)
source .ci/fuzz-modules.sh

# Leak checking. libFuzzer checks after every input whose mallocs and frees do not balance; the response target runs
# an async API (tasks, caches in Foundation), so nearly every input would trigger a full LeakSanitizer scan and the
# run would crawl at ~25 inputs/s. For it, the per-input check is off and LeakSanitizer checks once when the process
# exits (ASAN_OPTIONS detect_leaks=1): a leak still fails the run, without naming the input.
per_input_leaks_encoding=1
per_input_leaks_response=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=()
    for dir in Fuzz/*/; do
        name=$(basename "$dir")
        [ -f "$dir/Fuzz$name.swift" ] && [ "$name" != JSON ] && targets+=("$(echo "$name" | tr '[:upper:]' '[:lower:]')")
    done
    [ -x .ci/fuzz-json.sh ] && targets+=(json)
fi

# The runs, coverage, features and corpus size libFuzzer reported last in a log.
figures() {
    local log="$1" runs last
    [ -f "$log" ] || {
        echo "runs=? cov=? ft=? corpus=?"
        return
    }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    echo "runs=${runs:-?} cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')" \
        "ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')" \
        "corpus=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')"
}

summaries=()
failed=0
for target in "${targets[@]}"; do
    started=$(date +%s)
    if [ "$target" = json ]; then
        status=0
        FUZZ_SECONDS="$seconds" .ci/fuzz-json.sh || status=$?
        verdict=$([ $status -eq 0 ] && echo ok || echo FAILED)
        summaries+=("FUZZ json: status=$verdict $(figures Fuzz/.work/json/fuzz.log) total_s=$(($(date +%s) - started)) (via .ci/fuzz-json.sh)")
        [ $status -eq 0 ] || failed=1
        continue
    fi
    name="$(echo "${target:0:1}" | tr '[:lower:]' '[:upper:]')${target:1}"
    dir="Fuzz/$name"
    work="$root/$target"
    mkdir -p "$work/corpus" "$work/artifacts"
    modules_var="modules_${target}[@]"
    leaks_var="per_input_leaks_${target}"
    per_input_leaks="${!leaks_var:-1}"
    if [ ! -f "$dir/Fuzz$name.swift" ] || ! declare -p "modules_${target}" > /dev/null 2>&1; then
        echo "fuzz.sh: unknown target $target" >&2
        exit 2
    fi
    echo "=== building the $target fuzzer"
    built_modules=ok
    previous=()
    for module in "${!modules_var}"; do
        fuzz_module "$module" || built_modules=failed
        previous+=("$module")
    done
    linked=()
    for ((i = ${#previous[@]} - 1; i >= 0; i--)); do linked+=("${previous[$i]}"); done
    mapfile -t link_flags < <(fuzz_link_flags "${linked[@]}")
    if [ "$built_modules" != ok ] || ! swiftc "${fuzz_swift_flags[@]}" -module-name "${name}Fuzz" \
        "${link_flags[@]}" "$dir"/*.swift -o "$work/fuzz-$target" \
        2> >(grep -v "Cannot export local symbol" >&2); then
        summaries+=("FUZZ $target: status=FAILED (build)")
        failed=1
        continue
    fi
    built=$(date +%s)
    echo "=== fuzzing $target for $seconds s"
    status=0
    "$work/fuzz-$target" "$work/corpus" "$dir/corpus" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=4096 \
        -detect_leaks="$per_input_leaks" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        > "$work/fuzz.log" 2>&1 || status=$?
    finished=$(date +%s)
    verdict=ok
    if [ "$status" -ne 0 ]; then
        verdict=FAILED
        failed=1
        grep -E -m 3 'ERROR: libFuzzer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|Fatal error|==[0-9]+== ERROR' \
            "$work/fuzz.log" >&2 || true
        tail -n 40 "$work/fuzz.log" >&2
        ls -l "$work/artifacts" >&2 || true
    fi
    summaries+=("FUZZ $target: status=$verdict $(figures "$work/fuzz.log") build_s=$((built - started)) fuzz_s=$((finished - built))")
done

printf '%s\n' "${summaries[@]}"
exit "$failed"
