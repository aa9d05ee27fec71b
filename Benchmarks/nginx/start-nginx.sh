#!/usr/bin/env bash
# Starts nginx (Debian's `nginx` package, if installed) on 127.0.0.1 for the HTTP benchmark.
# Usage: start-nginx.sh start <prefix-dir>   -> prints the port on stdout, exits 0 when nginx answers
#        start-nginx.sh stop <prefix-dir>
# Exits non-zero (printing nothing on stdout) when nginx is not installed or does not start.
set -euo pipefail
action=${1:?start or stop}
prefix=${2:?prefix directory}
here="$(cd "$(dirname "$0")" && pwd)"
nginx_bin=$(command -v nginx || true)
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
[ -z "$nginx_bin" ] && { echo "nginx is not installed" >&2; exit 1; }

case "$action" in
start)
    mkdir -p "$prefix"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    sed -e "s|__PREFIX__|$prefix|g" -e "s|__PORT__|$port|g" "$here/nginx.conf.template" > "$prefix/nginx.conf"
    # nginx daemonizes: start it through Python's subprocess, which closes every inherited descriptor, so the
    # daemon keeps no descriptor of the caller's (Foundation's Process would otherwise wait for it forever).
    python3 -c 'import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:], stdout=2, stdin=subprocess.DEVNULL))' \
        "$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf"
    for _ in $(seq 50); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; exit 0; fi
        sleep 0.1
    done
    echo "nginx did not start" >&2
    exit 1
    ;;
stop)
    [ -f "$prefix/nginx.pid" ] && kill "$(cat "$prefix/nginx.pid")" 2>/dev/null || true
    ;;
esac
