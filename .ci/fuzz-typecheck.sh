#!/usr/bin/env bash
# Type-checks every fuzz target against the modules of the debug build, in seconds, so a public change that breaks a
# harness (a new error case its exhaustive switch misses, say) fails CI at once rather than after the sanitizer runs,
# when .ci/fuzz.sh builds the targets for real.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)"
# SwiftPM names the root package after its folder, lower-cased, every character but letters, digits and `_` made `_`
# (`Crud-Kit.x` is `crud_kit_x`); the harnesses reach `package` symbols through that name.
package_name="$(basename "$(pwd)" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_]/_/g')"
failed=0
for dir in Fuzz/*/; do
    name="$(basename "$dir")"
    if swiftc -typecheck -swift-version 6 -parse-as-library -package-name "$package_name" \
        -module-name "${name}Fuzz" -I "$bin/Modules" "$dir"*.swift; then
        echo "fuzz-typecheck: $name ok"
    else
        echo "fuzz-typecheck: $name FAILED" >&2
        failed=1
    fi
done
exit "$failed"
