# Shared by scripts/test, scripts/demo and scripts/bench: install what is
# missing, build, and run a throwaway PostgreSQL cluster as an unprivileged user.
# shellcheck shell=bash

PRIVRISK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_BIN=/usr/lib/postgresql/15/bin
PACKAGES=(clang-format-14 postgresql-15 postgresql-server-dev-15 postgresql-contrib postgresql-15-cron libpqxx-dev libpq-dev libboost-dev libxxhash-dev libsodium-dev googletest libgtest-dev
          cmake g++ make pkg-config python3 chromium)

# say TITLE: a section of a script's output; each closes the previous one with
# its time, so that a slow CI log says where its minutes went.
say() {
    [ -n "${_said_at:-}" ] && printf '   (%d s)\n' $((SECONDS - _said_at))
    _said_at=$SECONDS
    printf '\n== %s\n' "$*"
}

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
    # pg_cron (test/watch/run_cron.py), for a private tree copied before it was installed.
    if [ -f /usr/lib/postgresql/15/lib/pg_cron.so ] && [ ! -f "$PRIVRISK_PG_ROOT/usr/lib/postgresql/15/lib/pg_cron.so" ]; then
        cp -a /usr/lib/postgresql/15/lib/pg_cron.so "$PRIVRISK_PG_ROOT/usr/lib/postgresql/15/lib/"
        cp -a /usr/share/postgresql/15/extension/pg_cron* "$PRIVRISK_PG_ROOT/usr/share/postgresql/15/extension/"
    fi
    chmod 755 "$PRIVRISK_PG_ROOT"
    PG_BIN=$PRIVRISK_PG_ROOT/usr/lib/postgresql/15/bin
}

# The builds of these scripts keep line tables only (-g1): every frame of a
# sanitizer report or a backtrace still has its function and line, and a build
# from nothing (CI's) takes about 60% of the time that full debug information does.
DEBUG_INFO=-g1

# build_extension [CORE_LIB]: the module, linking CORE_LIB (the core library
# build_clients built) when given instead of compiling src/core a second time.
build_extension() {
    local core=()
    [ -n "${1:-}" ] && core=(CORE_LIB="$1")
    say "building and installing the extension"
    make -C "$PRIVRISK_ROOT" -s -j"$(nproc)" ${PRIVRISK_MAKE_FLAGS:-} DEBUG_INFO="$DEBUG_INFO" "${core[@]}" >/dev/null
    if [ -n "${PRIVRISK_PG_ROOT:-}" ]; then
        use_private_server
        make -C "$PRIVRISK_ROOT" -s install DEBUG_INFO="$DEBUG_INFO" "${core[@]}" DESTDIR="$PRIVRISK_PG_ROOT" >/dev/null
    else
        as_root make -C "$PRIVRISK_ROOT" -s install DEBUG_INFO="$DEBUG_INFO" "${core[@]}" >/dev/null
    fi
}

# build_clients [DIR [cmake options...]]: the CMake build, in build/ unless told;
# only the targets in CLIENT_TARGETS (space-separated) if it is set.
build_clients() {
    local dir=${1:-$PRIVRISK_ROOT/build} targets=()
    shift $(($# ? 1 : 0))
    [ -n "${CLIENT_TARGETS:-}" ] && read -r -a targets <<<"$CLIENT_TARGETS" && targets=(--target "${targets[@]}")
    say "building ${CLIENT_TARGETS:-the core library, unit tests and clients}"
    cmake -S "$PRIVRISK_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $DEBUG_INFO -DNDEBUG" "$@" >/dev/null
    cmake --build "$dir" -j"$(nproc)" "${targets[@]}" >/dev/null
}

# build_extension_sanitized DIR [CORE_LIB]: the sanitized module (scripts/test
# --sanitize, scripts/fuzz), built with make SANITIZE=1 in a
# copy of the module's sources in DIR and installed into the private server tree.
# PGXS puts objects beside their sources, so building in the tree would leave
# sanitized objects that the next normal build links without a word; the copy
# never shares a file with the normal build, however either run ends. The copy
# keeps its objects between runs (make rebuilds what changed: copies keep their
# sources' times); sources that are gone from the tree are dropped from it.
# CORE_LIB, if given, is the core library built sanitized by CMake, linked in
# instead of compiling src/core again (Makefile CORE_LIB).
build_extension_sanitized() {
    local dir=$1 core=()
    [ -n "${2:-}" ] && core=(CORE_LIB="$2")
    say "building and installing the sanitized extension"
    mkdir -p "$dir"
    find "$dir" -type f ! -name '*.o' ! -name '*.so' -delete
    (cd "$PRIVRISK_ROOT" && find Makefile src extension third_party -type f ! -name '*.o' ! -name '*.so' ! -name '*.bc' \
        ! -path 'extension/privrisk--*.sql' ! -path 'extension/privrisk-report-*' ! -path 'extension/released/*' -print0 |
        xargs -0 cp -a --parents -t "$dir")  # built scripts are built again there
    make -C "$dir" -s -j"$(nproc)" SANITIZE=1 DEBUG_INFO="$DEBUG_INFO" "${core[@]}" >/dev/null
    use_private_server
    make -C "$dir" -s install SANITIZE=1 DEBUG_INFO="$DEBUG_INFO" "${core[@]}" DESTDIR="$PRIVRISK_PG_ROOT" >/dev/null
}

# Environment for the server (start_cluster): empty, or the preloaded sanitizer
# runtime and its options (scripts/test --sanitize).
SERVER_ENV=()

# sanitizer_setup DIR (scripts/test --sanitize): every sanitizer report of the
# run, from the test programs and from any server process, goes to a file in
# DIR (asan.PID, ubsan.PID), where the run counts them. Sets ASAN_OPTIONS and
# UBSAN_OPTIONS for the test programs (built with the runtime linked in) and
# SERVER_ENV for the server, whose binaries are not instrumented: it gets the
# runtime preloaded, which the sanitized module then uses when it is loaded.
# - detect_leaks=0: PostgreSQL frees by dropping whole memory contexts and
#   leaves much to process exit, which LeakSanitizer reports as leaks.
# - abort_on_error=1, halt_on_error=1: the first error kills the process, so a
#   backend's error shows up as "terminated by signal 6" and fails its test too.
# - suppressions: only PostgreSQL's own false positives, each entry explained in
#   scripts/sanitize/*.supp.
# UBSan in the server starts only when a backend loads the module and then does
# not see UBSAN_OPTIONS: its reports go to the server log without a stack, and
# the backend exits with code 1. sanitizer_reports finds them there.
sanitizer_setup() {
    SANITIZER_REPORTS=$1
    local supp=$PRIVRISK_ROOT/scripts/sanitize common
    rm -rf "$SANITIZER_REPORTS"; mkdir -p "$SANITIZER_REPORTS"
    chmod 1777 "$SANITIZER_REPORTS"   # the tests run as this user, the server as postgres
    common="abort_on_error=1:disable_coredump=1"
    export ASAN_OPTIONS="detect_leaks=0:$common:log_path=$SANITIZER_REPORTS/asan:suppressions=$supp/asan.supp"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:$common:log_path=$SANITIZER_REPORTS/ubsan:suppressions=$supp/ubsan.supp"
    # Preloaded after libasan; scripts/sanitize/swift_demangle_stub.c says why.
    local stub
    stub=$(dirname "$SANITIZER_REPORTS")/swift_demangle_stub.so
    gcc -shared -fPIC -O2 -o "$stub" "$supp/swift_demangle_stub.c"
    chmod 755 "$stub"
    SERVER_ENV=(LD_PRELOAD="$(gcc -print-file-name=libasan.so) $stub" ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS")
}

# sanitizer_reports: prints every report file and every sanitizer line or
# crash in the server log; its output's first line is the number of reports.
sanitizer_reports() {
    local files=() f n
    for f in "$SANITIZER_REPORTS"/*; do [ -s "$f" ] && files+=("$f"); done
    n=${#files[@]}
    if [ -n "${CLUSTER_DIR:-}" ] && [ -f "$CLUSTER_DIR/server.log" ] &&
       grep -qE 'terminated by signal|AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:' "$CLUSTER_DIR/server.log"; then
        n=$((n + 1))
    fi
    echo "$n"
    for f in "${files[@]}"; do
        printf '\n-- %s\n' "$f"; head -n 60 "$f"
    done
    if [ -f "${CLUSTER_DIR:-}/server.log" ]; then  # no match is the good case: never an error under set -e
        grep -nE -B2 -A2 'terminated by signal|AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:' \
            "$CLUSTER_DIR/server.log" | head -n 40 || true
    fi
    return 0
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
        # Little WAL: tests need no archive nor replica, and a CI machine's disk may be small.
        echo "wal_level = minimal"
        echo "max_wal_senders = 0"
        echo "max_wal_size = 64MB"
        echo "min_wal_size = 32MB"
        for line in "$@"; do echo "$line"; done
    } | run_as_owner tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
    run_as_owner env "${SERVER_ENV[@]}" "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null \
        || { cat "$CLUSTER_DIR/server.log"; return 1; }
    export PGHOST=$CLUSTER_DIR PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
}

stop_cluster() {
    [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR/data" ] || return 0
    run_as_owner "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}
