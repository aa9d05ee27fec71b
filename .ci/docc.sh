#!/usr/bin/env bash
# Build the CRUDKit DocC catalog against the module's public symbol graph and fail on any DocC warning
# (an unresolved or ambiguous ``symbol`` link in a `///` comment or an article, a bad disambiguation, …).
#
#   .ci/docc.sh    builds the CRUDKit target, extracts its public symbol graph, runs `docc convert`.
#
# CRUDKit re-exports its lower modules (CRUDKitCore, CRUDKitFuture, CRUDKitJSON, CRUDKitHTTP; README,
# "Architecture"), so the graph is extracted with those modules' symbols included: one catalog documents everything
# a user sees after `import CRUDKit`, and a link from a lower module to a type below it resolves. A lower module
# never links a type above it (.ci/layers.sh checks that).
#
# DOCC_OUTPUT (default: a temporary directory) keeps the rendered archive. Needs `docc` on PATH (it ships
# in the Swift toolchain, e.g. /opt/swift/usr/bin/docc).
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
symbols="$work/symbol-graphs"
output="${DOCC_OUTPUT:-$work/CRUDKit.doccarchive}"
mkdir -p "$symbols"

swift build --target CRUDKit
bin="$(swift build --show-bin-path)"
triple="$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -n 1)"

swift symbolgraph-extract -module-name CRUDKit -target "$triple" \
    -I "$bin/Modules" -I "$bin" -output-dir "$symbols" -minimum-access-level public \
    -experimental-allowed-reexported-modules=CRUDKitCore,CRUDKitFuture,CRUDKitJSON,CRUDKitHTTP

docc convert Sources/CRUDKit/CRUDKit.docc --additional-symbol-graph-dir "$symbols" \
    --output-path "$output" --analyze --warnings-as-errors 2>&1 | tee "$work/docc.log"

warnings="$(grep -c -E '(warning|error):' "$work/docc.log" || true)"
if [[ "$warnings" != "0" ]]; then
    printf '\nDocC reported %s warning(s)/error(s); see above.\n' "$warnings" >&2
    exit 1
fi
printf '\nDocC: 0 warnings (CRUDKit catalog and public symbols).\n'
