#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (Debian's packaged binaries, no service started).
#
#   eval "$(.ci/postgres.sh start [DBNAME])"   # exports TEST_POSTGRES_URL, _DATADIR, _PID
#   .ci/postgres.sh stop "$TEST_POSTGRES_DATADIR"
#
# `start` installs Debian's postgresql package if its binaries are missing, creates a cluster
# in a new temporary folder on a free port of 127.0.0.1 (trust authentication: tests only),
# waits until it answers and creates the database (default blogcrawler_test). Only the export
# lines go to stdout; progress and errors go to stderr. `stop` stops that server (fast
# shutdown) and deletes the folder `start` made for it.
set -euo pipefail

MARKER=.blogcrawler-throwaway-postgres  # only folders carrying it are ever deleted by `stop`

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

pg_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [[ -n "$bin" && -x "$bin/initdb" ]]; then
        printf '%s\n' "$bin"
    fi
}

# PostgreSQL refuses to run as root: as root, run its programs as the postgres user.
as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

install_postgres() {
    [[ $(id -u) -eq 0 ]] || die "PostgreSQL is not installed and installing it needs root"
    log "installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local db=${1:-blogcrawler_test}
    [[ $db =~ ^[a-z_][a-z0-9_]*$ ]] || die "invalid database name: $db"
    local bin
    bin=$(pg_bin)
    if [[ -z "$bin" ]]; then
        install_postgres
        bin=$(pg_bin)
        [[ -n "$bin" ]] || die "no initdb under /usr/lib/postgresql/*/bin after installing"
    fi

    local root
    root=$(mktemp -d "${TMPDIR:-/tmp}/blogcrawler-pg.XXXXXX")
    chmod 755 "$root"  # mktemp's 700 would keep the postgres user out
    touch "$root/$MARKER"
    if [[ $(id -u) -eq 0 ]]; then
        install -d -o postgres -g postgres "$root/pg"
    else
        install -d "$root/pg"
    fi
    local data=$root/pg/data
    as_pg "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$root/initdb.log" 2>&1 \
        || { cat "$root/initdb.log" >&2; rm -rf "$root"; die "initdb failed"; }

    # The port is free when probed, not reserved: another process may take it first, so retry.
    local port="" attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        if as_pg "$bin/pg_ctl" -D "$data" -l "$root/pg/log" -w -t 60 -o \
            "-k $root/pg -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
            start >/dev/null 2>&1; then
            break
        fi
        log "start on port $port failed (attempt $attempt); log: $root/pg/log"
        port=""
    done
    if [[ -z "$port" ]]; then
        tail -20 "$root/pg/log" >&2 || true
        rm -rf "$root"
        die "could not start PostgreSQL"
    fi

    local ready=""
    for _ in $(seq 1 100); do
        if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
            ready=1
            break
        fi
        sleep 0.1
    done
    if [[ -z "$ready" ]]; then
        as_pg "$bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$root"
        die "PostgreSQL on port $port did not become ready"
    fi
    "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$db" \
        || { as_pg "$bin/pg_ctl" -D "$data" -m fast stop >/dev/null 2>&1; rm -rf "$root"; \
             die "createdb $db failed"; }

    local pid
    pid=$(head -1 "$data/postmaster.pid")
    log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, pid $pid"
    printf 'export TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:%s/%s\n' "$port" "$db"
    printf 'export TEST_POSTGRES_DATADIR=%s\n' "$data"
    printf 'export TEST_POSTGRES_PID=%s\n' "$pid"
}

stop() {
    local data=${1:?usage: postgres.sh stop DATADIR}
    local bin
    bin=$(pg_bin)
    [[ -n "$bin" ]] || die "PostgreSQL binaries not found"
    if [[ -f "$data/postmaster.pid" ]]; then
        as_pg "$bin/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null \
            || die "pg_ctl stop failed for $data"
    fi
    # DATADIR is ROOT/pg/data; ROOT carries the marker only if `start` made it.
    local root
    root=$(dirname "$(dirname "$data")")
    if [[ -f "$root/$MARKER" ]]; then
        rm -rf "$root"
    fi
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) die "usage: postgres.sh start [DBNAME] | stop DATADIR" ;;
esac
