#!/usr/bin/env bash
# Measures CRUDKit's public surface from its symbol graphs.
#
#   .ci/surface.sh [NAME ...]   builds the library modules, extracts their public symbol graphs and prints: the public
#                               symbol count per module, the public types, the members a `CRUDModel` conformer picks up
#                               (the model protocols' members and extensions), the symbols behind
#                               `@_spi(TransportKit)` (counted apart), and the overloads per name for the
#                               busiest names, the CRUD/API verbs and each NAME given.
#   .ci/surface.sh --check      the same, then compares the figures with the committed budget
#                               (.ci/surface-budget.json) and fails when any differs: a change that grows the surface
#                               updates the budget in the same commit, so the budget's diff is the review.
#
# MODULES_DIR overrides where the .swiftmodule files are looked for (and skips the build). Without --check it is
# informational: exits 0 unless the build or the extraction fails.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The library modules: every folder of Sources/ but the executables (a folder with a main.swift).
modules=()
for folder in Sources/*/; do
    name="$(basename "$folder")"
    [[ -e "$folder/main.swift" ]] && continue
    modules+=("$name")
done

if [[ -z "${MODULES_DIR:-}" ]]; then
    for module in "${modules[@]}"; do
        swift build --target "$module" >/dev/null
    done
    bin="$(swift build --show-bin-path)"
    MODULES_DIR="$bin/Modules"
    [[ -d "$MODULES_DIR" ]] || MODULES_DIR="$bin"
fi

triple="$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')"
for module in "${modules[@]}"; do
    [[ -e "$MODULES_DIR/$module.swiftmodule" ]] || continue
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$MODULES_DIR" \
        -minimum-access-level public -skip-synthesized-members -output-dir "$work" >/dev/null
    # The same with the `@_spi(TransportKit)` toolkit, counted apart (for transport authors, not app code).
    mkdir -p "$work/spi"
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$MODULES_DIR" \
        -minimum-access-level public -skip-synthesized-members -include-spi-symbols -output-dir "$work/spi" >/dev/null
done
arguments=()
for argument in "$@"; do
    if [[ "$argument" == "--check" ]]; then
        arguments+=(--budget .ci/surface-budget.json)
    else
        arguments+=("$argument")
    fi
done
python3 Scripts/surface.py "$work" --spi "$work/spi" "${arguments[@]}"
