#!/usr/bin/env bash
# Builds stand-ins for the official images deploy/compose.yaml names, for
# machines that cannot pull them: FROM scratch, from the binaries of
# Debian packages and the shared libraries they load (ldd), laid out as
# the official image is where the compose file relies on it. README.md
# lists every difference.
#
#   tests/e2e/standins/build.sh nginx IMAGE      # e.g. docker.io/library/nginx:1.27-alpine
#   tests/e2e/standins/build.sh postgres IMAGE   # e.g. docker.io/library/postgres:17-alpine
#   tests/e2e/standins/build.sh differences      # prints README.md's list
#
# The image gets the label `stand-in=tests/e2e/standins`, so a test can
# tell it from a real official image of the same name. Needs podman (and
# CONTAINERS_CONF where its defaults fail, see deploy/containers.conf).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../.."
source scripts/lib.sh

kind=${1:?usage: build.sh nginx|postgres IMAGE, or build.sh differences}
if [ "$kind" = differences ]; then
  sed -n '/^## Differences/,/^## /{/^## /d;p}' "$here/README.md"
  exit 0
fi
image=${2:?usage: build.sh nginx|postgres IMAGE}

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
root=$ctx/root
mkdir -p "$root"/{bin,etc,tmp,dev,proc,sys,usr/local/bin}
chmod 1777 "$root/tmp"

# Copies files into the image at the same path, following symlinks.
put() { for f in "$@"; do cp -L --parents "$f" "$root/"; done; }
# Copies executables or libraries with every shared library they load.
put_elf() {
  put "$@"
  local lib
  for lib in $(for f in "$@"; do ldd "$f"; done 2>/dev/null \
      | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
    [ -e "$root$lib" ] || put "$lib"
  done
}
# busybox (sh, wget, ...) as in the Alpine images: every applet in /bin.
busybox_applets() {
  cp /bin/busybox "$root/bin/busybox"
  local applet
  for applet in $(/bin/busybox --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
}

case "$kind" in
  nginx)
    apt_ensure nginx busybox-static
    busybox_applets
    put_elf /usr/sbin/nginx
    # As in the official image: /var/run is Alpine's link to /run, and
    # /var/cache/nginx and /run belong to root (mode 0755).
    mkdir -p "$root"/etc/nginx/conf.d "$root"/var/cache/nginx "$root"/var/log/nginx \
      "$root"/run "$root"/var/lib "$root"/usr/share/nginx/html
    ln -s ../run "$root/var/run"
    cp /etc/nginx/mime.types "$root/etc/nginx/mime.types"
    cp "$here/nginx.conf" "$root/etc/nginx/nginx.conf"
    cp "$here/default.conf" "$root/etc/nginx/conf.d/default.conf"
    echo '<!DOCTYPE html><title>Welcome to nginx!</title><h1>Welcome to nginx!</h1>' \
      >"$root/usr/share/nginx/html/index.html"
    # Debian's nginx keeps its temporary files in /var/lib/nginx/NAME; the
    # official image's in /var/cache/nginx/NAME_temp (tmpfs in the compose
    # file): point one at the other.
    mkdir -p "$root/var/lib/nginx"
    for pair in body:client_temp proxy:proxy_temp fastcgi:fastcgi_temp uwsgi:uwsgi_temp scgi:scgi_temp; do
      ln -s "/var/cache/nginx/${pair#*:}" "$root/var/lib/nginx/${pair%%:*}"
    done
    ln -s /dev/stdout "$root/var/log/nginx/access.log"
    ln -s /dev/stderr "$root/var/log/nginx/error.log"
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nginx:x:101:101:nginx:/var/cache/nginx:/sbin/nologin' >"$root/etc/passwd"
    printf '%s\n' 'root:x:0:' 'nginx:x:101:nginx' >"$root/etc/group"
    printf '%s\n' '#!/bin/sh' '# The official image runs /docker-entrypoint.d/*.sh first; there are none here.' \
      'exec "$@"' >"$root/docker-entrypoint.sh"
    chmod 0755 "$root/docker-entrypoint.sh"
    cat >"$ctx/Containerfile" <<'CONTAINERFILE'
FROM scratch
COPY root/ /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EXPOSE 80
STOPSIGNAL SIGQUIT
ENTRYPOINT ["/docker-entrypoint.sh"]
CMD ["nginx", "-g", "daemon off;"]
CONTAINERFILE
    ;;
  postgres)
    apt_ensure postgresql-15 postgresql-client-15 busybox-static tzdata
    busybox_applets
    bin=/usr/lib/postgresql/15/bin
    put_elf "$bin"/{postgres,initdb,pg_ctl,pg_isready,psql,pg_dump,pg_restore}
    # Server modules (PL/pgSQL, text search, encodings, ...), without the
    # LLVM JIT: with it absent the server runs without JIT.
    mods=()
    for m in /usr/lib/postgresql/15/lib/*.so; do
      case "$m" in */llvmjit*) ;; *) mods+=("$m") ;; esac
    done
    put_elf "${mods[@]}"
    mkdir -p "$root/usr/share/postgresql"
    cp -a /usr/share/postgresql/15 "$root/usr/share/postgresql/"
    cp -a /usr/share/zoneinfo "$root/usr/share/"
    for b in postgres initdb pg_ctl pg_isready psql pg_dump pg_restore; do
      ln -s "$bin/$b" "$root/usr/local/bin/$b"
    done
    cp "$here/postgres-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
    chmod 0755 "$root/usr/local/bin/docker-entrypoint.sh"
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'postgres:x:70:70:PostgreSQL user:/var/lib/postgresql:/bin/sh' >"$root/etc/passwd"
    printf '%s\n' 'root:x:0:' 'postgres:x:70:' >"$root/etc/group"
    # As in the official image: /var/run is Alpine's link to /run; the
    # data folder (1777) and the socket folder (3777) belong to postgres
    # (COPY --chown below: COPY gives everything else to root).
    mkdir -p "$root/run" "$root/var" "$ctx/owned/var/lib/postgresql/data" "$ctx/owned/run/postgresql"
    ln -s ../run "$root/var/run"
    chmod 1777 "$ctx/owned/var/lib/postgresql/data"
    chmod 3777 "$ctx/owned/run/postgresql"
    cat >"$ctx/Containerfile" <<'CONTAINERFILE'
FROM scratch
COPY root/ /
COPY --chown=70:70 owned/ /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=en_US.utf8 \
    PG_MAJOR=15 \
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
CONTAINERFILE
    ;;
  *) echo "build.sh: unknown kind $kind (nginx, postgres, differences)" >&2; exit 2 ;;
esac

export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"
old=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
podman build --quiet --pull=never --format docker \
  --label stand-in=tests/e2e/standins \
  --label org.opencontainers.image.description="stand-in for $image, built from Debian packages (tests/e2e/standins)" \
  --tag "$image" --file "$ctx/Containerfile" "$ctx" >/dev/null
# A stand-in built before under this name is replaced, not left dangling.
if [ -n "$old" ] && [ "$old" != "$(podman image inspect --format '{{.Id}}' "$image")" ] \
  && [ -n "$(podman image inspect --format '{{index .Config.Labels "stand-in"}}' "$old" 2>/dev/null)" ]; then
  podman rmi "$old" >/dev/null 2>&1 || true
fi
echo "built stand-in $image: $(podman image inspect --format '{{.Size}}' "$image") bytes"
