#!/usr/bin/env bash
# Start and stop the Django REST framework server of the CRUDKit interop suite (Tests/Interop/drf).
#
#   .ci/interop-server.sh start   creates .build-interop/venv (pinned requirements), migrates a SQLite
#                                 database in a fresh temporary directory, checks the listen backlog
#                                 (`manage.py interop_backlog_check`), creates the token user, starts
#                                 `manage.py runserver 127.0.0.1:<free port> --noreload` (Django's runserver
#                                 with a listen backlog of 1024, from the people app) in its own process
#                                 group, waits until it answers, and prints for the caller to eval:
#                                   export CRUDKIT_DRF_URL=http://127.0.0.1:PORT
#                                   export CRUDKIT_DRF_TOKEN=<40 hex characters>
#                                 (also written to .build-interop/env, .build-interop/url, .build-interop/token).
#                                 On failure it prints the server log on stderr, cleans up, exits 1 and
#                                 prints a `false` line on stdout so that `eval "$(… start)"` fails too.
#   .ci/interop-server.sh stop    stops exactly the process group that `start` recorded and removes the
#                                 temporary database; safe to call when nothing runs.
#   .ci/interop-server.sh status  says whether the recorded server is running.
#
# Needs only Python 3.10+ with venv/pip and PyPI. Set PYTHON to choose the interpreter (default python3).
# Progress goes to stderr; stdout carries only the export lines.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
project="$root/Tests/Interop/drf"
state="$root/.build-interop"
venv="$state/venv"
pidfile="$state/server.pid"
tmpfile="$state/tmpdir"
logfile="$state/server.log"
wait_seconds="${CRUDKIT_DRF_START_TIMEOUT:-60}"

say() { printf 'interop-server: %s\n' "$*" >&2; }

# True when $1 is a live process whose command line is our runserver.
is_our_server() {
    local pid="$1" cmd
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    cmd="$(ps -o command= -p "$pid" 2>/dev/null || true)"
    [[ "$cmd" == *manage.py*runserver* ]]
}

stop_server() {
    if [[ -f "$pidfile" ]]; then
        local pid
        pid="$(cat "$pidfile" 2>/dev/null || true)"
        if is_our_server "$pid"; then
            say "stopping server (process group $pid)"
            # The server was started as the leader of its own process group: signal the whole group.
            kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
            local i
            for ((i = 0; i < 50; i++)); do
                kill -0 -- "-$pid" 2>/dev/null || break
                sleep 0.1
            done
            if kill -0 -- "-$pid" 2>/dev/null; then
                say "server did not exit on TERM; sending KILL"
                kill -KILL -- "-$pid" 2>/dev/null || true
                for ((i = 0; i < 20; i++)); do
                    kill -0 -- "-$pid" 2>/dev/null || break
                    sleep 0.1
                done
            fi
        elif [[ -n "$pid" ]]; then
            say "recorded pid $pid is not a running interop server: left alone"
        fi
        rm -f "$pidfile"
    fi
    if [[ -f "$tmpfile" ]]; then
        local dir
        dir="$(cat "$tmpfile" 2>/dev/null || true)"
        # Only ever remove a directory that we created (mktemp name prefix).
        if [[ -n "$dir" && -d "$dir" && "$(basename "$dir")" == crudkit-drf.* ]]; then
            rm -rf -- "$dir"
        fi
        rm -f "$tmpfile"
    fi
    rm -f "$state/url" "$state/token" "$state/env"
}

fail_start() {
    say "FAILED: $*"
    if [[ -s "$logfile" ]]; then
        say "----- server log ($logfile) -----"
        tail -n 80 "$logfile" >&2 || true
        say "----- end of server log -----"
    fi
    stop_server
    echo "echo 'interop-server.sh start failed' >&2; false"
    exit 1
}

ensure_venv() {
    local python="${PYTHON:-python3}"
    command -v "$python" >/dev/null 2>&1 || fail_start "$python not found (set PYTHON)"
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
        fail_start "Python 3.10 or newer is needed for Django 5.2 ($("$python" -V 2>&1))"
    local want have=""
    want="$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' \
        "$project/requirements.txt")"
    [[ -f "$venv/.requirements.sha256" ]] && have="$(cat "$venv/.requirements.sha256")"
    if [[ "$want" == "$have" && -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import django, rest_framework' 2>/dev/null; then
        return
    fi
    say "creating virtual environment in $venv"
    rm -rf -- "$venv"
    "$python" -m venv "$venv" >&2 || fail_start "python -m venv failed (is the venv module installed?)"
    say "installing pinned requirements"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -r "$project/requirements.txt" >&2 || fail_start "pip install -r requirements.txt failed"
    echo "$want" >"$venv/.requirements.sha256"
}

free_port() {
    "$venv/bin/python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# Polls the API root until it answers 200, the server dies, or the time runs out.
wait_until_up() {
    local url="$1" pid="$2"
    "$venv/bin/python" - "$url" "$pid" "$wait_seconds" <<'EOF'
import os, sys, time, urllib.request
url, pid, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        print("server process exited", file=sys.stderr)
        sys.exit(2)
    try:
        request = urllib.request.Request(url + "/people/", headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
print(f"no answer from {url} within {limit:.0f} s", file=sys.stderr)
sys.exit(1)
EOF
}

start_server() {
    mkdir -p "$state"
    stop_server # a leftover from an earlier run is stopped first
    : >"$logfile"
    ensure_venv

    local tmp
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/crudkit-drf.XXXXXX")" || fail_start "mktemp failed"
    echo "$tmp" >"$tmpfile"
    export CRUDKIT_DRF_DB="$tmp/db.sqlite3"
    export DJANGO_SETTINGS_MODULE=interop.settings
    export PYTHONDONTWRITEBYTECODE=1

    (cd "$project" && "$venv/bin/python" manage.py migrate --noinput >>"$logfile" 2>&1) ||
        fail_start "manage.py migrate failed"
    # The suite opens ~33 connections at once: Django's own backlog of 10 reset some of them (see
    # people/management/commands/runserver.py). Check that the runserver we start queues a burst of 64.
    (cd "$project" && "$venv/bin/python" manage.py interop_backlog_check >>"$logfile" 2>&1) ||
        fail_start "the runserver listen backlog does not hold a burst of 64 connections"
    local token
    token="$(cd "$project" && "$venv/bin/python" manage.py interop_token 2>>"$logfile")" ||
        fail_start "creating the token user failed"
    [[ "$token" =~ ^[0-9a-f]{40}$ ]] || fail_start "unexpected token '$token'"

    local attempt port url pid
    for attempt in 1 2 3; do
        port="$(free_port)"
        url="http://127.0.0.1:$port"
        say "starting runserver on $url (attempt $attempt)"
        # Leader of a new session/process group (setsid via Python: portable to macOS), so that stop can
        # signal the group; exec keeps the PID. stdin from /dev/null, output to the log.
        (cd "$project" && exec "$venv/bin/python" -c \
            'import os, sys; os.setsid(); os.execv(sys.executable, [sys.executable] + sys.argv[1:])' \
            manage.py runserver "127.0.0.1:$port" --noreload </dev/null >>"$logfile" 2>&1) &
        pid=$!
        echo "$pid" >"$pidfile"
        if wait_until_up "$url" "$pid" 2>>"$logfile"; then
            echo "$url" >"$state/url"
            echo "$token" >"$state/token"
            printf 'export CRUDKIT_DRF_URL=%s\nexport CRUDKIT_DRF_TOKEN=%s\n' "$url" "$token" >"$state/env"
            say "server up at $url (pid $pid, database $CRUDKIT_DRF_DB, log $logfile)"
            cat "$state/env"
            return
        fi
        # The port may have been taken between probing and binding: retry on a new one.
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            rm -f "$pidfile"
            fail_start "server did not answer within $wait_seconds s"
        fi
        wait "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
    fail_start "server exited before answering (3 attempts)"
}

case "${1:-}" in
start) start_server ;;
stop) stop_server ;;
status)
    if [[ -f "$pidfile" ]] && is_our_server "$(cat "$pidfile")"; then
        echo "running: pid $(cat "$pidfile"), $(cat "$state/url" 2>/dev/null || echo '?')"
    else
        echo "not running"
        exit 1
    fi
    ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
