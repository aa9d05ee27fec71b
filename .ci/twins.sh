#!/usr/bin/env bash
# Checks that the `Future` twins are current: every public `async` operation in Sources/CRUDKit/{Client,CRUD} has a
# generated `Future` twin or an explicit, commented opt-out, and Sources/CRUDKit/Generated is exactly what
# Scripts/generate-future-twins.py writes today.
#
#   .ci/twins.sh        regenerates into a temporary folder and diffs; fails on any difference, on an operation
#                       without a marker, or on a marker the script cannot read. Fix with
#                       `python3 Scripts/generate-future-twins.py` and commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! python3 Scripts/generate-future-twins.py --output "$work"; then
    echo "✗ the twins cannot be generated (see above)"
    exit 1
fi
if ! diff -ru --exclude='.*' Sources/CRUDKit/Generated "$work" >"$work.diff" 2>&1; then
    cat "$work.diff"
    rm -f "$work.diff"
    echo "✗ Sources/CRUDKit/Generated is not what Scripts/generate-future-twins.py writes:"
    echo "  run python3 Scripts/generate-future-twins.py and commit the result"
    exit 1
fi
rm -f "$work.diff"

# The check itself: an operation whose marker is gone must fail the generation, naming it.
mkdir -p "$work/package/Sources/CRUDKit"
cp -R Sources/CRUDKit/Client Sources/CRUDKit/CRUD "$work/package/Sources/CRUDKit/"
python3 - "$work/package/Sources/CRUDKit/CRUD/Readable.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
open(path, "w").write(text.replace("    // twin: future\n", "", 1))
PY
if python3 Scripts/generate-future-twins.py --root "$work/package" --output "$work/unmarked" 2>"$work/unmarked.log"; then
    echo "✗ an operation without a marker was not refused"
    exit 1
elif ! grep -q "neither a twin nor an opt-out" "$work/unmarked.log"; then
    cat "$work/unmarked.log"
    echo "✗ an operation without a marker failed, but not with the expected message"
    exit 1
fi
count="$(grep -c '^    public .*func ' Sources/CRUDKit/Generated/*.swift | awk -F: '{ n += $2 } END { print n }')"
echo "✓ Future twins current: $count generated from their async operations"
