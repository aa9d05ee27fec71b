#!/usr/bin/env bash
# Run the crudkit-demo walk and fail CI if any step misbehaves (the demo exits non-zero and says which).
#
#   .ci/demo.sh    builds crudkit-demo, walks it against its own loopback server once per preset (standard, drf,
#                  rails, fastapi, vapor: each imitated by its InMemoryBackend style, each sending its own
#                  page-size parameter), checks that a walk failing midway deletes what it made, and, when
#                  CRUDKIT_DRF_URL is set (by `eval "$(.ci/interop-server.sh start)"`), walks once more against
#                  that real DRF server.
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

for preset in standard drf rails fastapi vapor; do
    walk --conventions "$preset"
done

# A walk that fails midway (a 503 injected at the PATCH step) must exit 1 and leave the server empty.
printf '\n--- crudkit-demo --fail-at patch (must fail, and clean up)\n'
status=0
output="$(timeout "$limit" "$demo" --fail-at patch)" || status=$?
printf '%s\n' "$output"
if [[ $status -ne 1 ]] || ! grep -q "the loopback server holds 0 people" <<<"$output"; then
    echo "✗ a failed walk did not clean up after itself (exit $status)"
    exit 1
fi
if [[ -n "${CRUDKIT_DRF_URL:-}" ]]; then
    walk --base-url "$CRUDKIT_DRF_URL" --conventions drf
else
    printf '\n--- CRUDKIT_DRF_URL is not set: the walk against the DRF interop server is skipped\n'
fi
