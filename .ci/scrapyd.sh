#!/usr/bin/env bash
# Scrapyd nodes on 127.0.0.1 for the tests, each in its own folder with its own scrapyd.conf.
#
#   eval "$(.ci/scrapyd.sh start 2)"   # exports TEST_SCRAPYD_NODES (URLs) and _PIDS
#   .ci/scrapyd.sh stop "$TEST_SCRAPYD_PIDS"
#
# The nodes run the project's venv (.venv/bin/python -m scrapyd), outside the repository (a
# scrapyd reads the [scrapyd] section of the nearest scrapy.cfg). The tests deploy the egg.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=$PWD/.venv/bin/python

log() { printf 'scrapyd.sh: %s\n' "$*" >&2; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local count=${1:-2} urls=() pids=()
    for _ in $(seq "$count"); do
        local home port
        home=$(mktemp -d "${TMPDIR:-/tmp}/blogcrawler-scrapyd.XXXXXX")
        port=$(free_port)
        printf '[scrapyd]\nbind_address = 127.0.0.1\nhttp_port = %s\neggs_dir = %s/eggs\nlogs_dir = %s/logs\nitems_dir =\ndbs_dir = %s/dbs\nmax_proc = 2\npoll_interval = 0.5\n' \
            "$port" "$home" "$home" "$home" > "$home/scrapyd.conf"
        # exec: the pid of the background job is the node's own.
        (cd "$home" && exec env -u PYTHONPATH -u SCRAPY_SETTINGS_MODULE \
            "$PYTHON" -m scrapyd --pidfile= -l "$home/scrapyd.log") >/dev/null 2>&1 &
        local pid=$!
        for _ in $(seq 100); do
            curl -sf "http://127.0.0.1:$port/daemonstatus.json" >/dev/null && break
            sleep 0.1
        done
        curl -sf "http://127.0.0.1:$port/daemonstatus.json" >/dev/null \
            || { log "node on port $port did not start: $(tail -5 "$home/scrapyd.log")"; exit 1; }
        log "node http://127.0.0.1:$port (pid $pid, folder $home)"
        urls+=("http://127.0.0.1:$port")
        pids+=("$pid")
    done
    printf 'export TEST_SCRAPYD_NODES=%q\nexport TEST_SCRAPYD_PIDS=%q\n' "${urls[*]}" "${pids[*]}"
}

stop() {
    local pid
    for pid in $1; do
        kill "$pid" 2>/dev/null || true
    done
}

case "${1:-}" in
    start) start "${2:-2}" ;;
    stop) stop "${2:-}" ;;
    *) log "usage: $0 start [COUNT] | stop PIDS"; exit 2 ;;
esac
