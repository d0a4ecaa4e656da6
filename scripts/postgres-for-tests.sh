# Sourced by scripts/test.sh: starts a throwaway PostgreSQL server (Debian's) on 127.0.0.1, in a temporary
# directory, as the `postgres` user (initdb refuses root), exports VARSEL_TEST_POSTGRES_URL, and stops it on exit.
start_test_postgres() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [[ -z "$bin" ]]; then
    echo "PostgreSQL is not installed (apt-get install postgresql)" >&2
    return 1
  fi
  VARSEL_PG_DIR="$(mktemp -d /tmp/varsel-postgres.XXXXXX)"
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  local as=()
  if [[ "$(id -u)" == 0 ]]; then
    chown postgres "$VARSEL_PG_DIR"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$VARSEL_PG_DIR/data" -U varsel --auth=trust --no-sync >/dev/null
  # Two roles for the tests of what a refused connection says: one that must give its password, one never let in.
  local hba="$VARSEL_PG_DIR/data/pg_hba.conf"
  { printf 'host all varsel_password 127.0.0.1/32 scram-sha-256\nhost all varsel_refused 127.0.0.1/32 reject\n'; cat "$hba"; } > "$hba.new"
  mv "$hba.new" "$hba"
  if [[ "$(id -u)" == 0 ]]; then chown postgres "$hba"; fi
  # fsync off: the server is thrown away; what is tested is Varsel's transactions and ordering, not the disk.
  "${as[@]}" "$bin/pg_ctl" -D "$VARSEL_PG_DIR/data" -l "$VARSEL_PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $VARSEL_PG_DIR -c fsync=off -c max_connections=300" start >/dev/null
  VARSEL_PG_STOP=("${as[@]}" "$bin/pg_ctl" -D "$VARSEL_PG_DIR/data" -m immediate stop)
  trap 'stop_test_postgres' EXIT
  export VARSEL_TEST_POSTGRES_URL="postgres://varsel@127.0.0.1:$port/postgres"
  echo "PostgreSQL for tests: $VARSEL_TEST_POSTGRES_URL"
}

stop_test_postgres() {
  if [[ -n "${VARSEL_PG_DIR:-}" ]]; then
    "${VARSEL_PG_STOP[@]}" >/dev/null 2>&1 || true
    rm -rf "$VARSEL_PG_DIR"
  fi
}
