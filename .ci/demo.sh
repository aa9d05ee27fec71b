#!/usr/bin/env bash
# Run the crudkit-demo walk and fail CI if any step misbehaves (the demo exits non-zero and says which).
#
#   .ci/demo.sh    builds crudkit-demo, walks it against its own loopback server twice (standard conventions,
#                  then Django REST framework conventions), and, when CRUDKIT_DRF_URL is set (by
#                  `eval "$(.ci/interop-server.sh start)"`), once more against that real DRF server.
#
# Each walk is bounded by DEMO_TIMEOUT seconds (default 60; a healthy walk takes well under a second).
set -euo pipefail
cd "$(dirname "$0")/.."

limit="${DEMO_TIMEOUT:-60}"
swift build --product crudkit-demo
demo="$(swift build --show-bin-path)/crudkit-demo"

walk() {
    printf '\n--- crudkit-demo %s\n' "$*"
    timeout "$limit" "$demo" "$@"
}

walk
walk --conventions drf
if [[ -n "${CRUDKIT_DRF_URL:-}" ]]; then
    walk --base-url "$CRUDKIT_DRF_URL" --conventions drf
else
    printf '\n--- CRUDKIT_DRF_URL is not set: the walk against the DRF interop server is skipped\n'
fi
