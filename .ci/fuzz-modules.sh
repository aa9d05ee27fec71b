#!/usr/bin/env bash
# Sourced by .ci/fuzz.sh and .ci/fuzz-json.sh: builds CRUDKit's modules for libFuzzer, each from its own folder
# (Sources/<Module>), the way SwiftPM builds them, so a fuzzer links modules rather than a hand-kept list of files.
#
#   source .ci/fuzz-modules.sh
#   fuzz_module CRUDKitCore     # -> $fuzz_modules/libCRUDKitCore.a and CRUDKitCore.swiftmodule
#   fuzz_module CRUDKitHTTP     # after the modules it imports (they are found in $fuzz_modules)
#
# Every module is compiled with -sanitize=fuzzer,address (coverage and AddressSanitizer instrumentation), -O, the
# package's language mode and upcoming features, `-package-name CRUDKit` (so a harness in the same package may use
# `package` declarations) and -enable-testing (so a harness may `@testable import` the module's internals). A module
# is built once per run and reused by every fuzzer that links it.

fuzz_modules="${fuzz_modules:-.build-fuzz/modules}"
mkdir -p "$fuzz_modules"
# One id per run, shared with the scripts this one starts (.ci/fuzz.sh runs .ci/fuzz-json.sh).
export fuzz_run="${fuzz_run:-$$}"

# The flags every fuzzing compile shares (modules and harnesses).
fuzz_swift_flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name CRUDKit
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility)

# fuzz_module <Module>: builds Sources/<Module> into $fuzz_modules unless done in this run.
fuzz_module() {
    local module="$1"
    local stamp="$fuzz_modules/$module.built-$fuzz_run"
    [ -f "$stamp" ] && return 0
    local sources
    mapfile -t sources < <(find "Sources/$module" -name '*.swift' | LC_ALL=C sort)
    echo "=== building module $module (${#sources[@]} files)"
    rm -f "$fuzz_modules/$module".built-*
    swiftc "${fuzz_swift_flags[@]}" -enable-testing -module-name "$module" -I "$fuzz_modules" \
        -emit-module -emit-module-path "$fuzz_modules/$module.swiftmodule" \
        -emit-library -static -o "$fuzz_modules/lib$module.a" "${sources[@]}" \
        2> >(grep -v "Cannot export local symbol" >&2) || return 1
    touch "$stamp"
}

# fuzz_link_flags <Module>…: the flags that link these modules into a harness, highest module first.
fuzz_link_flags() {
    local flags=(-I "$fuzz_modules" -L "$fuzz_modules")
    local module
    for module in "$@"; do flags+=("-l$module"); done
    printf '%s\n' "${flags[@]}"
}
