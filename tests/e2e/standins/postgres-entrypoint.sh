#!/bin/sh
# docker-entrypoint.sh of the PostgreSQL stand-in: what the official
# image's entrypoint does for a compose file that runs it as its own user
# (70:70). On an empty PGDATA: initdb with POSTGRES_USER as the superuser
# and POSTGRES_PASSWORD as its password, listen on every address, password
# (scram-sha-256) logins from any host, POSTGRES_DB created; then it runs
# the command (default `postgres`) in its place. An initialised PGDATA is
# left as it is. No /docker-entrypoint-initdb.d, no POSTGRES_INITDB_ARGS,
# no POSTGRES_HOST_AUTH_METHOD.
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  set -- postgres "$@"
fi

if [ "$1" = postgres ]; then
  : "${PGDATA:=/var/lib/postgresql/data}"
  export PGDATA
  POSTGRES_USER=${POSTGRES_USER:-postgres}
  POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
      echo "Error: Database is uninitialized and superuser password is not specified." >&2
      echo "       You must specify POSTGRES_PASSWORD to a non-empty value for the superuser." >&2
      exit 1
    fi
    mkdir -p "$PGDATA"
    chmod 00700 "$PGDATA"
    pwfile=$(umask 077; mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" \
      --encoding=UTF8 --locale=C -D "$PGDATA"
    rm -f "$pwfile"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
    printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    # Set up over the socket only, as the official entrypoint does.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
    if [ "$POSTGRES_DB" != postgres ]; then
      echo "CREATE DATABASE \"$POSTGRES_DB\";" \
        | psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "PostgreSQL init process complete; ready for start up."
  fi
fi

exec "$@"
