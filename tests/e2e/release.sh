#!/usr/bin/env bash
# scripts/release against local targets, end to end:
#
#   tests/e2e/release.sh
#
# Builds four sites whose hashed assets differ (A to D: the templates'
# site.css with one more comment line each), then:
#   - usage errors exit 2 and touch nothing; a umask of 077 still leaves the
#     release readable by the front's and the sidecars' users;
#   - publish A, publish B, rollback (to A) and the refusals below run while
#     a plain static server is rooted at TARGET/current and a reader fetches
#     the home page and every asset of every version of it seen so far
#     (tests/e2e/release_poller.py: a page cached from an older release must
#     still find its assets; any answer but 200 fails). B's release carries
#     A's assets, hard-linked; after the rollback A carries B's;
#   - broken builds (no manifest.json, an unparsable one, one of another
#     shape, one missing or changing a listed file) and a second rollback
#     with nothing left exit 1 with TARGET unchanged, byte for byte;
#   - publish C (given as a symlink) and D with --keep 2: older releases are
#     pruned, the current one carries the kept ones' assets;
#   - the same checks on a host without python3 (jq instead);
#   - the reload protocol against a stand-in for the sidecar
#     (release_sidecar_stub.py: reloads on SIGHUP, keeps the old release
#     when the new manifest's format is not one it reads, reports the
#     release on /healthz): --reload, --reload-container (through a
#     stand-in for podman) and --wait see the new id; a process a reload
#     leaves behind does not hold the lock; a release the stub refuses, or
#     a wait nobody answers, makes publish switch back and exit 1;
#   - a remote TARGET (host:/path) through rsync and an ssh stand-in that
#     runs the remote command locally (RELEASE_SSH);
#   - SIDECAR PART: two real sidecars (`sidecar serve --dist TARGET/current`),
#     one told with SIGHUP, the other noticing the symlink itself; --wait on
#     both, their /healthz and X-Release, the home page served; rollback;
#     a release they refuse makes publish switch back. Runs only when the
#     sidecar reports release ids on /healthz; says SKIP otherwise.
#
# Binaries: $E2E_BIN/{generate,sidecar}.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin="$E2E_BIN"
[ -x "$bin/generate" ] || { echo "release e2e: $bin/generate is missing; run cargo build" >&2; exit 1; }
apt_ensure curl python3 rsync util-linux jq

started=$(date +%s)
scratch_begin

fail() { echo "release e2e: FAIL: $*" >&2; exit 1; }
step() { printf -- '--- %s\n' "$*"; }
release() { timeout 120 scripts/release "$@"; }
id_of() { sha256sum "$1/manifest.json" | cut -c1-16; }
current() { basename "$(readlink "$target/current")"; }
# Everything under TARGET: paths, types, symlink targets, sizes, contents.
snapshot() {
  (cd "$1" && find . -printf '%p %y %l %s\n' | sort && find . -type f ! -name .lock -print0 | sort -z | xargs -0 sha256sum)
}

step "four builds whose hashed assets differ"
for v in a b c d; do
  cp -R templates "$tmp/templates-$v"
  printf '\n/* release %s */\n' "$v" >>"$tmp/templates-$v/assets/site.css"
  timeout 300 "$bin/generate" build --templates "$tmp/templates-$v" --out "$tmp/dist-$v" --quiet >/dev/null
done
id_a=$(id_of "$tmp/dist-a")
id_b=$(id_of "$tmp/dist-b")
id_c=$(id_of "$tmp/dist-c")
id_d=$(id_of "$tmp/dist-d")
css() { (cd "$1" && ls assets/site.*.css); }
[ "$(css "$tmp/dist-a")" != "$(css "$tmp/dist-b")" ] || fail "A and B have the same site.css name"
echo "A $id_a  B $id_b  C $id_c  D $id_d"

step "usage"
# Read in full first: grep -q stops at the match, and under pipefail the
# writer's SIGPIPE on a longer text would fail the line.
help_text=$(scripts/release --help) || fail "--help exits non-zero"
grep -q "scripts/release publish DIST --to TARGET" <<<"$help_text" || fail "--help"
for args in "" "publish" "publish $tmp/dist-a" "rollback" "publish $tmp/dist-a --to $tmp/x --keep 0" "deploy --to $tmp/x"; do
  code=0
  # shellcheck disable=SC2086 # word splitting wanted
  scripts/release $args >/dev/null 2>&1 || code=$?
  [ "$code" = 2 ] || fail "'scripts/release $args' exited $code, expected 2"
done
[ ! -e "$tmp/x" ] || fail "a usage error touched the target"

step "a umask of 077: the front's and the sidecars' users can still read the release"
(umask 077 && release publish "$tmp/dist-a" --to "$tmp/private/site" >/dev/null)
for path in "$tmp/private/site" "$tmp/private/site/releases" "$tmp/private/site/current/" "$tmp/private/site/current/index.html" "$tmp/private/site/current/$(css "$tmp/dist-a")"; do
  [ "$(($(stat -c '0%a' "$path") & 4))" = 4 ] || fail "$path is not readable by others ($(stat -c %a "$path"))"
done

target="$tmp/site"
step "a static server rooted at $target/current, and a reader of every page version's assets"
mkdir -p "$target"
port=$(free_port)
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$target/current" >"$tmp/static.log" 2>&1 &
pids+=($!)

step "publish A"
release publish "$tmp/dist-a" --to "$target"
[ "$(readlink "$target/current")" = "releases/$id_a" ] || fail "current is $(readlink "$target/current"), a relative link to releases/$id_a expected"
diff -r "$tmp/dist-a" "$target/current" >/dev/null || fail "releases/$id_a differs from dist A"
[ "$(cat "$target/history")" = "$id_a" ] || fail "history: $(cat "$target/history")"
wait_http "http://127.0.0.1:$port/"
python3 tests/e2e/release_poller.py "http://127.0.0.1:$port" "$tmp/poller.stop" "$tmp/poller.ready" >"$tmp/poller.log" 2>&1 &
poller=$!
pids+=("$poller")
for _ in $(seq 1 100); do [ -e "$tmp/poller.ready" ] && break; sleep 0.1; done
[ -e "$tmp/poller.ready" ] || { cat "$tmp/poller.log"; fail "the reader never read a page"; }

step "publish B"
release publish "$tmp/dist-b/" --to "$target/"
[ "$(current)" = "$id_b" ] || fail "current is $(current) after publishing B"
for f in $(css "$tmp/dist-a") $(css "$tmp/dist-b"); do
  [ -f "$target/current/$f" ] || fail "$f missing from the current release"
done
a_css=$(css "$tmp/dist-a")
[ "$(stat -c %i "$target/releases/$id_a/$a_css")" = "$(stat -c %i "$target/releases/$id_b/$a_css")" ] \
  || fail "A's $a_css is not hard-linked into B's release"
cmp -s "$tmp/dist-b/index.html" "$target/current/index.html" || fail "the current page is not B's"
[ "$(tr '\n' ' ' <"$target/history")" = "$id_a $id_b " ] || fail "history: $(cat "$target/history")"
sleep 1

step "rollback to A"
release rollback --to "$target"
[ "$(current)" = "$id_a" ] || fail "current is $(current) after rollback"
cmp -s "$tmp/dist-a/index.html" "$target/current/index.html" || fail "the current page is not A's after rollback"
[ -f "$target/current/$(css "$tmp/dist-b")" ] || fail "B's assets are not carried into A on rollback"
[ "$(cat "$target/history")" = "$id_a" ] || fail "history after rollback: $(cat "$target/history")"
[ -d "$target/releases/$id_b" ] || fail "B, the release rolled back from, was pruned at once"
status=$(release status --to "$target")
grep -q "current: $id_a" <<<"$status" || fail "status: $status"
sleep 1

step "refused without touching the target: broken builds, nothing to roll back to"
before=$(snapshot "$target")
refused() {
  local what=$1 code=0 err; shift
  err=$(release "$@" 2>&1) && code=0 || code=$?
  [ "$code" = 1 ] || fail "$what: exit $code, expected 1 ($err)"
  [ "$(snapshot "$target")" = "$before" ] || fail "$what changed the target"
  echo "  $what: ${err##*release: }"
}
cp -R "$tmp/dist-c" "$tmp/no-manifest" && rm "$tmp/no-manifest/manifest.json"
refused "no manifest.json" publish "$tmp/no-manifest" --to "$target"
cp -R "$tmp/dist-c" "$tmp/bad-json" && head -c 100 "$tmp/dist-c/manifest.json" >"$tmp/bad-json/manifest.json"
refused "a truncated manifest.json" publish "$tmp/bad-json" --to "$target"
cp -R "$tmp/dist-c" "$tmp/not-manifest" && echo '{"files": 3}' >"$tmp/not-manifest/manifest.json"
refused "a manifest.json of another shape" publish "$tmp/not-manifest" --to "$target"
cp -R "$tmp/dist-c" "$tmp/half" && rm "$tmp/half/$(css "$tmp/dist-c")"
refused "a build missing a listed file" publish "$tmp/half" --to "$target"
cp -R "$tmp/dist-c" "$tmp/changed" && echo "changed" >>"$tmp/changed/index.html"
refused "a build with a file that differs from its manifest" publish "$tmp/changed" --to "$target"
refused "a missing DIST" publish "$tmp/no-such-dist" --to "$target"
refused "a second rollback" rollback --to "$target"

touch "$tmp/poller.stop"
wait "$poller" || { cat "$tmp/poller.log"; fail "a page or an asset broke during the releases"; }
cat "$tmp/poller.log"

step "publish C and D with --keep 2: pruning, assets carried"
# DIST given as a symlink to the build: the release is a copy, not the link.
ln -s dist-c "$tmp/dist-c-link"
release publish "$tmp/dist-c-link" --to "$target" --keep 2
[ -d "$target/releases/$id_c" ] && [ ! -L "$target/releases/$id_c" ] || fail "releases/$id_c is not a directory of its own"
release publish "$tmp/dist-d" --to "$target" --keep 2
[ "$(current)" = "$id_d" ] || fail "current is $(current) after publishing D"
kept=$(cd "$target/releases" && ls -A | sort | tr '\n' ' ')
want=$(printf '%s\n' "$id_c" "$id_d" | sort | tr '\n' ' ')
[ "$kept" = "$want" ] || fail "releases kept: $kept; expected C and D: $want"
[ -f "$target/current/$(css "$tmp/dist-c")" ] || fail "C's assets are not in D's release"
[ "$(tr '\n' ' ' <"$target/history")" = "$id_c $id_d " ] || fail "history: $(cat "$target/history")"

step "a host without python3: the same checks with jq"
mkdir -p "$tmp/no-python"
for tool in bash sh env awk sed grep cat mv ln cp rm mkdir chmod readlink basename dirname sha256sum cut tac tr head tail flock date sleep curl jq; do
  ln -s "$(command -v "$tool")" "$tmp/no-python/$tool"
done
jq_release() { timeout 120 env PATH="$tmp/no-python" scripts/release "$@"; }
jq_target="$tmp/jq-site"
jq_release publish "$tmp/dist-a" --to "$jq_target" >/dev/null
jq_release publish "$tmp/dist-b" --to "$jq_target" >/dev/null
[ -f "$jq_target/current/$(css "$tmp/dist-a")" ] || fail "jq: A's assets not carried into B"
before=$(snapshot "$jq_target")
for broken in bad-json not-manifest half changed; do
  code=0
  jq_release publish "$tmp/$broken" --to "$jq_target" >/dev/null 2>&1 || code=$?
  [ "$code" = 1 ] || fail "jq: the $broken build was not refused (exit $code)"
done
# A manifest naming a precompressed twin that is not there.
cp -R "$tmp/dist-c" "$tmp/no-twin"
python3 - "$tmp/no-twin/manifest.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["files"]["index.html"]["encodings"] = {"gzip": {"path": "index.html.gz", "size": 10, "etag": '"0123456789abcdef0123456789abcdef"'}}
json.dump(m, open(sys.argv[1], "w"), separators=(",", ":"))
EOF
code=0
jq_release publish "$tmp/no-twin" --to "$jq_target" >/dev/null 2>&1 || code=$?
[ "$code" = 1 ] || fail "jq: a build missing a twin was not refused (exit $code)"
[ "$(snapshot "$jq_target")" = "$before" ] || fail "jq: a refused build changed the target"
jq_release rollback --to "$jq_target" >/dev/null
[ "$(readlink "$jq_target/current")" = "releases/$id_a" ] || fail "jq: rollback"

step "the reload protocol against a stand-in for the sidecar"
stub_port=$(free_port)
python3 tests/e2e/release_sidecar_stub.py "$stub_port" "$target/current" 2>"$tmp/stub.log" &
stub=$!
pids+=("$stub")
stub_url="http://127.0.0.1:$stub_port"
wait_http "$stub_url/healthz"
curl -fsS "$stub_url/healthz" | grep -q "\"release\":\"$id_d\"" || fail "the stub does not report D"
# The reload leaves a process behind: it must not hold the release lock.
release publish "$tmp/dist-c" --to "$target" --reload "kill -HUP $stub; sleep 20 >/dev/null 2>&1 &" --wait "$stub_url" --timeout 10
curl -fsS "$stub_url/healthz" | grep -q "\"release\":\"$id_c\"" || fail "the stub does not report C"
# --reload-container: `podman kill --signal HUP NAME` per name, through a
# stand-in for podman that records its arguments and signals the stub.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$*" >>"%s"\nkill -HUP %s\n' "$tmp/podman.calls" "$stub" >"$tmp/bin/podman-standin"
chmod +x "$tmp/bin/podman-standin"
RELEASE_CONTAINER_TOOL="$tmp/bin/podman-standin" release publish "$tmp/dist-d" --to "$target" \
  --reload-container pi_sidecar_1 --reload-container pi_sidecar_2 --wait "$stub_url" --timeout 10
[ "$(cat "$tmp/podman.calls")" = "kill --signal HUP pi_sidecar_1
kill --signal HUP pi_sidecar_2" ] || fail "podman was called with: $(cat "$tmp/podman.calls")"
release publish "$tmp/dist-c" --to "$target" --reload "kill -HUP $stub" --wait "$stub_url" --timeout 10
# The reload command sees the release it rolls out.
release publish "$tmp/dist-d" --to "$target" --reload "echo \"\$RELEASE_ID \$RELEASE_DIR\" >$tmp/reload.env; kill -HUP $stub" --wait "$stub_url" --timeout 10
[ "$(cat "$tmp/reload.env")" = "$id_d $target/releases/$id_d" ] || fail "the reload command saw $(cat "$tmp/reload.env")"
# A release the sidecar refuses: a build of a manifest format it does not
# read (a newer generator than the sidecar), complete as scripts/release
# checks it. publish waits, switches back to D and fails.
cp -R "$tmp/dist-a" "$tmp/refused"
python3 - "$tmp/refused/manifest.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["format"] = 2
json.dump(m, open(sys.argv[1], "w"), separators=(",", ":"))
EOF
id_refused=$(id_of "$tmp/refused")
code=0
release publish "$tmp/refused" --to "$target" --reload "kill -HUP $stub" --wait "$stub_url" --timeout 3 >"$tmp/refused.log" 2>&1 || code=$?
cat "$tmp/refused.log"
[ "$code" = 1 ] || fail "publishing a release the sidecar refuses exited $code"
[ "$(current)" = "$id_d" ] || fail "current is $(current) after a refused release, D expected"
[ "$(tail -n 1 "$target/history")" = "$id_d" ] || fail "history after a refused release: $(cat "$target/history")"
[ -d "$target/releases/$id_refused" ] || fail "the refused release was not kept for inspection"
grep -q "refused the release" "$tmp/stub.log" || fail "the stub never saw the bad release"
curl -fsS "$stub_url/healthz" | grep -q "\"release\":\"$id_d\"" || fail "the stub does not report D after the switch back"
# A wait that nobody answers fails within its bound, after switching back.
code=0
t0=$(date +%s)
release publish "$tmp/dist-a" --to "$target" --wait "http://127.0.0.1:$(free_port)" --timeout 2 >/dev/null 2>&1 || code=$?
[ "$code" = 1 ] && [ "$(current)" = "$id_d" ] || fail "an unanswered wait: exit $code, current $(current)"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "an unanswered wait took $(($(date +%s) - t0)) s"
kill "$stub"

step "a remote TARGET (host:/path) through rsync and an ssh stand-in"
cat >"$tmp/bin/ssh" <<'EOF'
#!/bin/sh
# ssh [-i KEY] [-o OPTION] [-p PORT] [-l USER] HOST COMMAND...: runs COMMAND
# here, through a shell as sshd does; the options and the host are ignored.
while [ $# -gt 0 ]; do
  case "$1" in
    -i|-o|-p|-l|-F) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
shift
exec sh -c "$*"
EOF
chmod +x "$tmp/bin/ssh"
ln -s bin/ssh "$tmp/ssh"
remote="$tmp/remote site"
RELEASE_SSH="$tmp/ssh" release publish "$tmp/dist-a" --to "static.example.org:$remote"
RELEASE_SSH="$tmp/ssh" release publish "$tmp/dist-b" --to "static.example.org:$remote" --reload 'echo "reloaded $RELEASE_ID"' \
  | tee "$tmp/remote.log"
grep -q "reloaded $id_b" "$tmp/remote.log" || fail "the remote reload did not run"
[ "$(readlink "$remote/current")" = "releases/$id_b" ] || fail "remote current: $(readlink "$remote/current")"
diff -r "$tmp/dist-b" "$remote/releases/$id_b" -x 'site.*.css*' >/dev/null || fail "the remote release differs from B"
RELEASE_SSH="$tmp/ssh" release rollback --to "static.example.org:$remote"
[ "$(readlink "$remote/current")" = "releases/$id_a" ] || fail "remote current after rollback: $(readlink "$remote/current")"
code=0
RELEASE_SSH="$tmp/ssh" release publish "$tmp/bad-json" --to "static.example.org:$remote" >/dev/null 2>&1 || code=$?
[ "$code" = 1 ] || fail "a broken build was sent to a remote target (exit $code)"

step "SIDECAR PART: the real sidecar reloading on SIGHUP and on the symlink's change"
if [ ! -x "$bin/sidecar" ]; then
  echo "SKIP (sidecar part): $bin/sidecar is missing"
else
  # Two sidecars, each on a port of its own; a port taken by another step
  # between its choice and the bind (it has happened) is replaced, at most
  # twice, and said so.
  started_on=()
  for _ in 1 2; do
    for attempt in 1 2 3; do
      p=$(free_port)
      # No sample data: this part is about releases.
      if SIDECAR_DIST_POLL_MS=200 sidecar_start "$bin/sidecar" "$p" "$tmp/sidecar-$p.log" --dist "$target/current" \
        --data-dir "$tmp/data-$p" --site-origin "http://127.0.0.1:$p" --sample none; then
        declare "pid_$p=$sidecar_pid"
        started_on+=("$p")
        break
      fi
      [ "$attempt" -lt 3 ] || fail "no sidecar started in three tries"
      echo "release e2e: port $p was taken before the sidecar bound it; another port"
    done
  done
  s1=${started_on[0]} s2=${started_on[1]}
  if ! curl -fsS "http://127.0.0.1:$s1/healthz" | grep -q '"release":"'; then
    echo "SKIP (sidecar part): this sidecar does not report its release on /healthz ($(curl -fsS "http://127.0.0.1:$s1/healthz")), so it does not reload releases yet"
  else
    hup="pid_$s1"
    release publish "$tmp/dist-c" --to "$target" --reload "kill -HUP ${!hup}" \
      --wait "http://127.0.0.1:$s1" --wait "http://127.0.0.1:$s2" --timeout 20
    for p in "$s1" "$s2"; do
      curl -fsS -D "$tmp/h" -o /dev/null "http://127.0.0.1:$p/"
      grep -qi "^x-release: $id_c" "$tmp/h" || fail "sidecar :$p answers without X-Release: $id_c"
      curl -fsS "http://127.0.0.1:$p/" | cmp -s - "$tmp/dist-c/index.html" || fail "sidecar :$p does not serve C's home page"
    done
    release rollback --to "$target" --wait "http://127.0.0.1:$s1" --wait "http://127.0.0.1:$s2" --timeout 20
    curl -fsS "http://127.0.0.1:$s2/healthz" | grep -q "\"release\":\"$id_d\"" || fail "sidecar :$s2 after rollback"
    # A release the sidecar refuses: publish switches back, both keep D.
    code=0
    release publish "$tmp/refused" --to "$target" --reload "kill -HUP ${!hup}" \
      --wait "http://127.0.0.1:$s1" --wait "http://127.0.0.1:$s2" --timeout 5 >/dev/null 2>&1 || code=$?
    [ "$code" = 1 ] && [ "$(current)" = "$id_d" ] || fail "a release the sidecar refuses: exit $code, current $(current)"
    for p in "$s1" "$s2"; do
      kill -0 "$(eval echo "\$pid_$p")" || fail "sidecar :$p died"
      curl -fsS "http://127.0.0.1:$p/healthz" | grep -q "\"release\":\"$id_d\"" || fail "sidecar :$p does not report D"
    done
    echo "the sidecars followed publish, rollback and a refused release"
  fi
fi

echo "release e2e: passed in $(($(date +%s) - started)) s"
