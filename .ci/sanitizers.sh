#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer and AddressSanitizer (with LeakSanitizer on Linux).
#
#   .ci/sanitizers.sh              # both, thread first
#   .ci/sanitizers.sh thread       # only ThreadSanitizer
#   .ci/sanitizers.sh address      # only AddressSanitizer + LeakSanitizer
#
# Each sanitizer builds into its own scratch path (.build-tsan, .build-asan; git-ignored by .build-*/) so the
# ordinary .build is never rebuilt. CRUDKIT_SANITIZER=1 is exported: tests read it through
# Tests/CRUDKitTests/Reliability/TestEnvironment.swift and skip only their resident-memory bounds, which count the
# sanitizer's shadow memory and mean nothing here. Tests whose memory bounds do not check that switch yet are left
# out with SANITIZER_SKIP, a regular expression for `swift test --skip` (default: LargeTransferTests, the 50 MB
# transfers; set SANITIZER_SKIP= to run everything).
#
# Fails (non-zero exit) when a test fails or when any sanitizer report appears in the output, even one printed
# by a child process or after the tests passed: the output is kept in .build-<name>/sanitizer.log and scanned.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
export CRUDKIT_SANITIZER=1

sanitizers=("$@")
[ ${#sanitizers[@]} -eq 0 ] && sanitizers=(thread address)

root="$(pwd)"
# halt_on_error=0 lets the run finish so one log shows every report; exitcode makes a reported race fail the
# test process anyway. report_signal_unsafe=0 silences reports about signal handlers Foundation installs.
export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1:report_signal_unsafe=0"
# detect_leaks: LeakSanitizer runs at exit of every instrumented process on Linux (it is not supported on macOS).
# fast_unwind_on_malloc=0: libcurl has no frame pointers, so only the slow unwinder records the whole stack of its
# allocations, which the suppressions in .ci/lsan.supp need to match (it makes the run about 4x slower).
# detect_stack_use_after_return=0: that mode moves locals whose address is taken to a "fake stack" on the heap,
# which blinds CRUDKit's stack guard (Sources/CRUDKitJSON/StackLimit.swift reads a local's address to see how much
# of the thread's stack is left); with it on, a recursive model nested to the parser's limit overflowed the 512 KB
# thread of RecursiveModelStackTests.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$root/.ci/lsan.supp:print_suppressions=0"
skip="${SANITIZER_SKIP-LargeTransferTests}"
skip_arguments=()
[ -n "$skip" ] && skip_arguments=(--skip "$skip")
# SANITIZER_FILTER (a `swift test --filter` expression) runs only some tests, for local iteration.
[ -n "${SANITIZER_FILTER:-}" ] && skip_arguments+=(--filter "$SANITIZER_FILTER")

failed=0
for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    *)
        echo "unknown sanitizer: $sanitizer (use thread or address)" >&2
        exit 2
        ;;
    esac
    mkdir -p "$scratch"
    log="$scratch/sanitizer.log"
    started=$(date +%s)
    echo "=== swift test --sanitize=$sanitizer (scratch $scratch, log $log)"
    status=0
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | tee "$log" || status=$?
    built=$(date +%s)
    if [ "$status" -eq 0 ]; then
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${skip_arguments[@]}" 2>&1 |
            tee -a "$log" ||
            status=$?
    fi
    finished=$(date +%s)
    reports=$(grep -cE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' \
        "$log" || true)
    echo "=== sanitizer=$sanitizer status=$status reports=$reports build_s=$((built - started))" \
        "test_s=$((finished - built)) total_s=$((finished - started))"
    if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
        grep -E -A 30 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' "$log" | head -200 || true
        failed=1
    fi
done
exit "$failed"
