#!/usr/bin/env bash
# Instructions per request of each static server, counted by valgrind's
# callgrind (repeatable where wall-clock figures are not). Called by
# `BENCH_CALLGRIND=1 scripts/bench serve`, which passes what it built:
#
#   bench/callgrind.sh DIST NGINX_CONF SIDECAR BARE_HYPER
#
# Each server runs alone under callgrind with one worker (nginx without a
# master process); 200 requests warm it up, the counters are zeroed, then
# N (BENCH_CALLGRIND_REQUESTS, 2000) requests of each kind are sent on one
# keep-alive connection and the counters dumped: instructions (Ir) / N.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh

dist=$1 nginx_conf=$2 sidecar=$3 bare=$4
n=${BENCH_CALLGRIND_REQUESTS:-2000}
apt_ensure valgrind >/dev/null

work=$(mktemp -d)
chmod 755 "$work"
vpid=""
trap '[[ -n $vpid ]] && kill "$vpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

asset=/$(python3 -c 'import json,sys; print(next(k for k in sorted(json.load(open(sys.argv[1]))["files"]) if k.startswith("assets/")))' "$dist/manifest.json")

# Sends N GETs of PATH (with one optional header) on one keep-alive
# connection and checks each status.
send() {
    python3 - "$1" "$2" "$3" "$4" "${5:-}" <<'PY'
import http.client, sys
port, path, n, status, header = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
headers = {}
if header:
    k, v = header.split(": ", 1)
    headers[k] = v
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
for _ in range(n):
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    r.read()
    assert r.status == status, (path, r.status)
PY
}

etag() { curl -fsS -o /dev/null -D - "http://127.0.0.1:$1/" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}'; }

# measure NAME PORT CMD...: starts CMD under callgrind, prints a row.
measure() {
    local name=$1 port=$2
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.%p" --dump-instr=no \
        "$@" >"$work/$name.log" 2>&1 &
    vpid=$!
    # Slow under valgrind: up to two minutes to start.
    for _ in $(seq 1 1200); do
        curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
        sleep 0.1
    done
    local tag row="$name"
    tag=$(etag "$port")
    for kind in html asset 304 br; do
        local path=/ status=200 header=""
        case $kind in
        asset) path=$asset ;;
        304) status=304 header="If-None-Match: $tag" ;;
        br) header="Accept-Encoding: br" ;;
        esac
        if [[ $name == bare && $kind != html ]]; then
            row+=" -"
            continue
        fi
        send "$port" "$path" 200 "$status" "$header"
        callgrind_control -z "$vpid" >/dev/null
        send "$port" "$path" "$n" "$status" "$header"
        callgrind_control -d "kind-$kind" "$vpid" >/dev/null
        sleep 0.5
        local file ir
        # The newest dump is this kind's.
        file=$(ls -t "$work/$name".* | grep -v '\.log$' | head -1)
        ir=$(awk '/^summary:|^totals:/{print $2; exit}' "$file")
        row+=" $((ir / n))"
    done
    kill "$vpid" 2>/dev/null || true
    wait "$vpid" 2>/dev/null || true
    vpid=""
    echo "$row"
}

sport=$(free_port)
rows=()
# The sidecar twice: its request log on (the default, lines written to a
# file as in production) and off; `--log warn` would silence the log's
# lines, so the other logs are left at info, where a request writes none.
rows+=("$(measure sidecar "$sport" "$sidecar" serve --listen "127.0.0.1:$sport" --dist "$dist" \
    --data-dir "$work/data" --sample none --workers 1 --log info --access-log true --log-output stdout)")
sport=$(free_port)
rows+=("$(measure sidecar-nolog "$sport" "$sidecar" serve --listen "127.0.0.1:$sport" --dist "$dist" \
    --data-dir "$work/data2" --sample none --workers 1 --log info --access-log false)")
nport=$(free_port)
sed -e "s/worker_processes [^;]*;/worker_processes 1; master_process off;/" \
    -e "s/listen 127.0.0.1:[0-9]*;/listen 127.0.0.1:$nport;/" \
    -e "s#^pid .*#pid $work/nginx.pid;#" "$nginx_conf" >"$work/nginx.conf"
rows+=("$(measure nginx "$nport" nginx -c "$work/nginx.conf" -p "$(dirname "$nginx_conf")" -g 'daemon off;')")
bport=$(free_port)
rows+=("$(measure bare "$bport" "$bare" "127.0.0.1:$bport" "$dist/index.html" 1)")

echo
echo "instructions per request (callgrind Ir / $n, one worker, one keep-alive connection):"
printf '%-14s %12s %12s %12s %12s\n' server "html page" "asset" "304" "brotli page"
for r in "${rows[@]}"; do
    read -r name a b c d <<<"$r"
    printf '%-14s %12s %12s %12s %12s\n' "$name" "$a" "$b" "$c" "$d"
done
# The request log's share of the sidecar's instructions, per kind.
read -r _ la lb lc ld <<<"${rows[0]}"
read -r _ na nb nc nd <<<"${rows[1]}"
printf '%-14s' "log's cost"
for pair in "$la $na" "$lb $nb" "$lc $nc" "$ld $nd"; do
    read -r on off <<<"$pair"
    printf ' %12s' "$(awk -v a="$on" -v b="$off" 'BEGIN {printf "+%.1f %%", 100 * (a - b) / b}')"
done
echo
