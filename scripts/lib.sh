# Shared by scripts/test, scripts/demo and scripts/bench: install what is
# missing, build, and run a throwaway PostgreSQL cluster as an unprivileged user.
# shellcheck shell=bash

PRIVRISK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_BIN=/usr/lib/postgresql/15/bin
PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-contrib libpqxx-dev libpq-dev libboost-dev libxxhash-dev libsodium-dev googletest libgtest-dev
          cmake g++ make pkg-config)

say() { printf '\n== %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else echo "need root (or sudo) for: $*" >&2; return 1
    fi
}

ensure_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# PRIVRISK_PG_ROOT=DIR runs against a private copy of the server's tree in DIR
# (PostgreSQL finds its lib and share folders relative to its binary), so two
# checkouts or a sanitizer build never replace each other's installed module.
use_private_server() {
    [ -n "${PRIVRISK_PG_ROOT:-}" ] || return 0
    if [ ! -x "$PRIVRISK_PG_ROOT/usr/lib/postgresql/15/bin/postgres" ]; then
        mkdir -p "$PRIVRISK_PG_ROOT/usr/lib/postgresql" "$PRIVRISK_PG_ROOT/usr/share/postgresql"
        cp -a /usr/lib/postgresql/15 "$PRIVRISK_PG_ROOT/usr/lib/postgresql/"
        cp -a /usr/share/postgresql/15 "$PRIVRISK_PG_ROOT/usr/share/postgresql/"
    fi
    chmod 755 "$PRIVRISK_PG_ROOT"
    PG_BIN=$PRIVRISK_PG_ROOT/usr/lib/postgresql/15/bin
}

build_extension() {
    say "building and installing the extension"
    make -C "$PRIVRISK_ROOT" -s -j"$(nproc)" ${PRIVRISK_MAKE_FLAGS:-} >/dev/null
    if [ -n "${PRIVRISK_PG_ROOT:-}" ]; then
        use_private_server
        make -C "$PRIVRISK_ROOT" -s install DESTDIR="$PRIVRISK_PG_ROOT" >/dev/null
    else
        as_root make -C "$PRIVRISK_ROOT" -s install >/dev/null
    fi
}

build_clients() {
    say "building the core library, unit tests and clients"
    cmake -S "$PRIVRISK_ROOT" -B "$PRIVRISK_ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$PRIVRISK_ROOT/build" -j"$(nproc)" >/dev/null
}

# PostgreSQL refuses to run as root: as root, the cluster runs as the
# 'postgres' system user that the Debian package creates.
run_as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_cluster DIR [extra postgresql.conf lines...]: a cluster listening on a
# Unix socket in DIR only; exports PGHOST, PGPORT, PGUSER, PGDATABASE for clients.
start_cluster() {
    CLUSTER_DIR=$1; shift
    rm -rf "$CLUSTER_DIR"; mkdir -p "$CLUSTER_DIR"
    [ "$(id -u)" = 0 ] && chown postgres: "$CLUSTER_DIR"
    chmod 755 "$CLUSTER_DIR"
    run_as_owner "$PG_BIN/initdb" -D "$CLUSTER_DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$CLUSTER_DIR/initdb.log" 2>&1 \
        || { cat "$CLUSTER_DIR/initdb.log"; return 1; }
    {
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$CLUSTER_DIR'"
        echo "port = 5432"
        echo "fsync = off"
        echo "synchronous_commit = off"
        echo "full_page_writes = off"
        echo "shared_buffers = 512MB"
        echo "max_parallel_workers_per_gather = 2"
        for line in "$@"; do echo "$line"; done
    } | run_as_owner tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
    run_as_owner "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null \
        || { cat "$CLUSTER_DIR/server.log"; return 1; }
    export PGHOST=$CLUSTER_DIR PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
}

stop_cluster() {
    [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR/data" ] || return 0
    run_as_owner "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}
