#!/usr/bin/env bash
# The time and peak memory to compile crudkit-openapi's models, as README's "Models from OpenAPI" reports them:
# for each size, a synthetic document of that many schemas (crudkit-openapi-bench --write), its generated models as
# the one target of a scratch package that depends on this checkout's CRUDKit, CRUDKit built first, then a debug
# `swift build --target Models -j <jobs>` of the models alone under `/usr/bin/time -v` — CPU (user + system), wall
# time and the peak resident set of the largest process (one compiler).
#
#   Tools/OpenAPI/compile-benchmark.sh [--sizes 10,100] [--runs 1] [--jobs 1] [--scratch DIR]
#
# A 1,000-schema document takes about an hour of one core and 2–3 GB: run it on a quiet machine, never in CI.
set -euo pipefail
tool="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$tool/../.." && pwd)"
sizes="10"
runs=1
jobs=1
scratch="$(mktemp -d)"
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --scratch) scratch="$2"; shift 2 ;;
    *) echo "usage: $0 [--sizes 10,100] [--runs 1] [--jobs 1] [--scratch DIR]" >&2; exit 64 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2; exit 69; }
case "$sizes$runs$jobs" in *[!0-9,]*) echo "sizes, runs and jobs are numbers" >&2; exit 64 ;; esac

(cd "$tool" && swift build -c release --product crudkit-openapi-bench >/dev/null)
bench="$(cd "$tool" && swift build -c release --show-bin-path)/crudkit-openapi-bench"

echo "schemas  files  lines    run  CPU user+sys (s)  wall (s)  peak memory (MB)  load average at the end"
for size in ${sizes//,/ }; do
    package="$scratch/schemas-$size"
    mkdir -p "$package"
    "$bench" --write "$scratch/documents" --sizes "$size" --runs 1 >/dev/null
    rm -rf "$package/Sources"
    mkdir -p "$package/Sources"
    cp -R "$scratch/documents/schemas-$size/Models" "$package/Sources/Models"
    cat >"$package/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CompileBenchmark",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "CRUDKit", path: "$root")],
    targets: [.target(name: "Models", dependencies: [.product(name: "CRUDKit", package: "CRUDKit")])],
    swiftLanguageModes: [.v6]
)
SWIFT
    (cd "$package" && swift build --target CRUDKit >/dev/null)
    files=$(find "$package/Sources/Models" -name '*.swift' | wc -l | tr -d ' ')
    lines=$(find "$package/Sources/Models" -name '*.swift' -exec cat {} + | wc -l | tr -d ' ')
    for run in $(seq 1 "$runs"); do
        # Every file changed, so every file compiles again (the first run compiles them for the first time).
        find "$package/Sources/Models" -name '*.swift' -exec touch {} +
        report="$scratch/time-$size-$run.txt"
        (cd "$package" && /usr/bin/time -v swift build --target Models -j "$jobs" >"$scratch/build-$size-$run.log" 2>"$report") ||
            { cat "$scratch/build-$size-$run.log" "$report" >&2; exit 1; }
        user=$(awk -F': ' '/User time/ {print $2}' "$report")
        system=$(awk -F': ' '/System time/ {print $2}' "$report")
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$report" |
            awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
        peak=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$report")
        load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')
        printf '%-8s %-6s %-8s %-4s %-17s %-9s %-17s %s\n' "$size" "$files" "$lines" "$run" \
            "$(awk "BEGIN {printf \"%.1f\", $user + $system}")" "$wall" "$peak" "$load"
    done
done
