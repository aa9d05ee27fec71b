#!/usr/bin/env bash
# crudkit-openapi (Tools/OpenAPI): build and test the package, then prove generated models against live servers.
#
#   1. swift build + swift test in Tools/OpenAPI (snapshot and stub-server tests; the build runs the build plugin
#      CRUDKitOpenAPIPlugin on Tests/PluginFixture, whose generated models PluginFixtureTests uses).
#   2. Starts the DRF interop server (.ci/interop-server.sh, whose pinned requirements include drf-spectacular)
#      unless CRUDKIT_DRF_URL is set, and takes its schema from /api/schema/ (OpenAPI 3.0).
#   3. Starts the FastAPI app of Tests/Interop/fastapi (its own venv in .build-interop-fastapi) on a free
#      loopback port and takes /openapi.json (OpenAPI 3.1).
#   4. Generates models from both (DRF: one diagnostic, /api/schema/ itself; FastAPI: one, its ValidationError.loc
#      items kept as JSON) into a scratch package (.build-openapi-scratch), compiles them with the CRUD walk of
#      Tools/OpenAPI/Interop/Walk and runs the walk against both servers.
#   5. Generates a synthetic document of 200 schemas (OPENAPI_LARGE_SCHEMAS) with --strict and compiles it alone, as
#      its own target of the scratch package (kept apart from the walk so that the walk's build stays small).
# Stops what it started. Needs Swift 6, Python 3.10+ with venv/pip, PyPI and curl.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tool="$root/Tools/OpenAPI"
scratch="$root/.build-openapi-scratch"
fastapi_state="$root/.build-interop-fastapi"
python="${PYTHON:-python3}"
started_drf=0
fastapi_pid=""
say() { printf 'openapi: %s\n' "$*" >&2; }

cleanup() {
    if [[ -n "$fastapi_pid" ]]; then kill -TERM "$fastapi_pid" 2>/dev/null || true; fi
    if [[ "$started_drf" == 1 ]]; then "$root/.ci/interop-server.sh" stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

say "building and testing Tools/OpenAPI"
log="$(mktemp)"
(cd "$tool" && swift build --build-tests 2>&1 | tee "$log")
# Warnings as errors for the package's own code only (as .ci/ahc.sh does): `-warnings-as-errors` on the command
# line would rebuild OpenAPIKit and Yams with it. CI builds from a clean clone, so every own file's warnings print.
own_warnings=$(grep -E "^$tool/(Sources|Tests|Plugins)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
rm -f "$log"
if [[ -n "$own_warnings" ]]; then
    say "warnings in Tools/OpenAPI (treated as errors):"
    echo "$own_warnings" >&2
    exit 1
fi
(cd "$tool" && swift test --skip-build)

if [[ -z "${CRUDKIT_DRF_URL:-}" ]]; then
    say "starting the DRF interop server"
    eval "$("$root/.ci/interop-server.sh" start)"
    started_drf=1
fi

say "starting the FastAPI app"
mkdir -p "$fastapi_state"
want="$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' \
    "$root/Tests/Interop/fastapi/requirements.txt")"
if [[ ! -x "$fastapi_state/venv/bin/python" || "$(cat "$fastapi_state/venv/.requirements.sha256" 2>/dev/null)" != "$want" ]]; then
    rm -rf "$fastapi_state/venv"
    "$python" -m venv "$fastapi_state/venv"
    "$fastapi_state/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -r "$root/Tests/Interop/fastapi/requirements.txt" >&2
    echo "$want" >"$fastapi_state/venv/.requirements.sha256"
fi
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$root/Tests/Interop/fastapi" && exec "$fastapi_state/venv/bin/python" -m uvicorn app:app --host 127.0.0.1 \
    --port "$port" --log-level warning) >"$fastapi_state/server.log" 2>&1 &
fastapi_pid=$!
export CRUDKIT_FASTAPI_URL="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -sf "$CRUDKIT_FASTAPI_URL/openapi.json" -o "$fastapi_state/openapi.json" && break
    sleep 0.2
done
[[ -s "$fastapi_state/openapi.json" ]] || { cat "$fastapi_state/server.log" >&2; say "FastAPI did not start"; exit 1; }

say "taking the schemas and generating models"
mkdir -p "$scratch/Sources/openapi-walk"
curl -sf "$CRUDKIT_DRF_URL/api/schema/?format=json" -o "$scratch/drf-openapi.json"
generator="$(cd "$tool" && swift build --show-bin-path)/crudkit-openapi"
"$generator" generate "$scratch/drf-openapi.json" --output "$scratch/Sources/DRFModels" --clean
"$generator" generate "$fastapi_state/openapi.json" --output "$scratch/Sources/FastAPIModels" --clean
large="${OPENAPI_LARGE_SCHEMAS:-200}"
bench="$(cd "$tool" && swift build --show-bin-path)/crudkit-openapi-bench"
"$bench" --write "$scratch/synthetic" --sizes "$large" >/dev/null
"$generator" generate "$scratch/synthetic/schemas-$large/openapi.json" --output "$scratch/Sources/LargeModels" \
    --clean --strict
cp "$tool/Interop/Walk/main.swift" "$scratch/Sources/openapi-walk/main.swift"
cat >"$scratch/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription

let crudkit: Target.Dependency = .product(name: "CRUDKit", package: "CRUDKit")
let package = Package(
    name: "OpenAPIScratch",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "CRUDKit", path: "$root")],
    targets: [
        .target(name: "DRFModels", dependencies: [crudkit]),
        .target(name: "FastAPIModels", dependencies: [crudkit]),
        .target(name: "LargeModels", dependencies: [crudkit]),
        .executableTarget(name: "openapi-walk", dependencies: ["DRFModels", "FastAPIModels", crudkit]),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT

say "compiling the models generated from both servers with the walk (warnings are errors)"
start=$(date +%s)
(cd "$scratch" && swift build --product openapi-walk -Xswiftc -warnings-as-errors 2>&1 | tail -n 5)
say "compiled in $(( $(date +%s) - start )) s"

say "running the CRUD walk"
(cd "$scratch" && "$(swift build --show-bin-path)/openapi-walk")

say "compiling the $large-schema models alone (warnings are errors)"
start=$(date +%s)
(cd "$scratch" && swift build --target LargeModels -Xswiftc -warnings-as-errors 2>&1 | tail -n 5)
say "$large schemas: $(find "$scratch/Sources/LargeModels" -name '*.swift' | wc -l) files compiled in $(( $(date +%s) - start )) s"
