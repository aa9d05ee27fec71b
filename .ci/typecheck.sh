#!/usr/bin/env bash
# Keep CRUDKit's overloads easy on the type checker, and its compile-time guards working.
#
#   .ci/typecheck.sh    builds the CRUDKit module, then type-checks the fixtures in Tests/TypeCheck against it
#                       with swiftc (seconds, no package build per check):
#     1. FutureChain.swift: chains of five Future calls (model operations, api.get/post/put/delete with literal
#        queries), and AsyncChain.swift: the same calls awaited, each result pinned to its plain type (the async
#        form must win in async code although it is @_disfavoredOverload); fails if any expression takes longer than
#        TYPECHECK_BUDGET_MS (default 200) to type-check, or on any warning.
#     2. WrongChain.swift (a wrong result type), WrongQueryChain.swift and WrongLateQueryChain.swift (a number in a
#        text query in the first / the fourth of five chained api calls) must each fail with a type error (not
#        "unable to type-check this expression in reasonable time") within TYPECHECK_WRONG_LIMIT_S seconds
#        (default 10). Before the async operations were disfavoured, the query chains gave up after 36 s and 27 s.
#     3. TopLevelMisuse/main.swift: `try await ada.delete()` in top-level code must not compile, and the error
#        must name the fix (@main).
#     4. README.md's first sample, as written (an @main type), must type-check without a warning.
#
# MODULES_DIR overrides where CRUDKit.swiftmodule is looked for (and skips the build).
set -euo pipefail
cd "$(dirname "$0")/.."

budget_ms="${TYPECHECK_BUDGET_MS:-200}"
wrong_limit_s="${TYPECHECK_WRONG_LIMIT_S:-10}"
fixtures=Tests/TypeCheck
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "${MODULES_DIR:-}" ]]; then
    swift build --target CRUDKit >/dev/null # no extra flags: they would make the next plain build recompile
    bin="$(swift build --show-bin-path)"
    MODULES_DIR="$bin/Modules"
    [[ -d "$MODULES_DIR" ]] || MODULES_DIR="$bin"
fi

failed=0
# The frontend itself (one process, so `timeout` stops all of it), in whole-module mode over the files given.
swiftc_typecheck=(swiftc -frontend -typecheck -swift-version 6 -module-cache-path "$work/cache" -I "$MODULES_DIR")
typecheck() { "${swiftc_typecheck[@]}" "$@"; }
# `took` runs a command and leaves "W s wall, U s CPU" in $work/took (the machine may be shared: CPU time is the
# figure that does not depend on its load).
took() { /usr/bin/time -f "%e s wall, %U s CPU" -o "$work/took" "$@"; }

# 1. The chains, within the budget.
if ! took "${swiftc_typecheck[@]}" -parse-as-library -warn-long-expression-type-checking="$budget_ms" \
    "$fixtures/Models.swift" "$fixtures/FutureChain.swift" "$fixtures/AsyncChain.swift" 2>"$work/chain.log"; then
    cat "$work/chain.log"
    echo "✗ FutureChain.swift or AsyncChain.swift does not type-check"
    failed=1
elif grep -q "type-check" "$work/chain.log"; then
    grep -A3 "type-check" "$work/chain.log"
    echo "✗ an expression in FutureChain.swift or AsyncChain.swift took longer than ${budget_ms} ms to type-check"
    failed=1
elif [[ -s "$work/chain.log" ]]; then
    cat "$work/chain.log"
    echo "✗ FutureChain.swift or AsyncChain.swift type-checks with warnings"
    failed=1
else
    echo "✓ FutureChain.swift, AsyncChain.swift: every expression under ${budget_ms} ms ($(tail -n1 "$work/took") in all)"
fi

# 2. Wrong chains fail fast, with a type error.
wrongs=(WrongChain WrongQueryChain WrongLateQueryChain)
for wrong in "${wrongs[@]}"; do
    status=0
    took timeout "$wrong_limit_s" "${swiftc_typecheck[@]}" \
        -parse-as-library "$fixtures/Models.swift" "$fixtures/$wrong.swift" 2>"$work/wrong.log" || status=$?
    elapsed="$(tail -n1 "$work/took")"
    if [[ $status -eq 0 ]]; then
        echo "✗ $wrong.swift type-checks, but it is wrong on purpose"
        failed=1
    elif [[ $status -eq 124 ]]; then
        echo "✗ $wrong.swift: no answer within ${wrong_limit_s} s"
        failed=1
    elif grep -q "reasonable time" "$work/wrong.log"; then
        grep "error:" "$work/wrong.log"
        echo "✗ $wrong.swift: the type checker gave up (${elapsed})"
        failed=1
    elif ! grep -q "error:" "$work/wrong.log"; then
        cat "$work/wrong.log"
        echo "✗ $wrong.swift failed without a compiler error"
        failed=1
    else
        echo "✓ $wrong.swift: rejected in ${elapsed}: $(grep -m1 "error:" "$work/wrong.log" | sed 's/.*error: //')"
    fi
done

# 3. A Future write in top-level code is an error that names the fix.
status=0
typecheck "$fixtures/TopLevelMisuse/main.swift" 2>"$work/toplevel.log" || status=$?
if [[ $status -eq 0 ]]; then
    cat "$work/toplevel.log"
    echo "✗ TopLevelMisuse/main.swift compiles: top-level 'try await ada.delete()' would only start the delete"
    failed=1
elif [[ "$(grep -c ": error: .*unavailable from asynchronous contexts.*@main" "$work/toplevel.log")" -ne \
    "$(grep -c "// misuse$" "$fixtures/TopLevelMisuse/main.swift")" ]]; then
    cat "$work/toplevel.log"
    echo "✗ TopLevelMisuse/main.swift: not every line marked // misuse fails with the error that names @main"
    failed=1
else
    echo "✓ TopLevelMisuse/main.swift: $(grep -m1 "error:" "$work/toplevel.log" | sed 's/.*error: //')"
fi

# 4. README's first sample, exactly as written.
awk '/^```swift$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md >"$work/ReadmeTop.swift"
if ! typecheck -parse-as-library "$work/ReadmeTop.swift" 2>"$work/readme.log" || [[ -s "$work/readme.log" ]]; then
    cat "$work/readme.log"
    echo "✗ README.md's first sample does not type-check cleanly"
    failed=1
else
    echo "✓ README.md's first sample type-checks"
fi

exit $failed
