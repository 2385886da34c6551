"""A reader of a static front during releases, for tests/e2e/release.sh:
fetches the home page again and again, remembers every version of it seen
(as a browser or a CDN caches it), and fetches every /assets/ file each of
those versions names, until STOP_FILE exists. Any answer but 200 is a
broken page: prints it and exits 1.

    python3 release_poller.py BASE_URL STOP_FILE READY_FILE
"""

import os
import re
import sys
import time
import urllib.error
import urllib.request

base, stop, ready = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
pages = {}
rounds = fetches = 0


def get(path):
    global fetches
    fetches += 1
    try:
        with urllib.request.urlopen(base + path, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""
    except OSError as e:
        return str(e), b""


deadline = time.monotonic() + 300
while not os.path.exists(stop) and time.monotonic() < deadline:
    status, body = get("/")
    if status != 200:
        print(f"poller: GET / answered {status}", flush=True)
        sys.exit(1)
    pages[body] = sorted(set(re.findall(rb'"(/assets/[^"?#]+)"', body)))
    for assets in pages.values():
        for asset in assets:
            status, _ = get(asset.decode())
            if status != 200:
                print(f"poller: GET {asset.decode()} answered {status} "
                      f"(named by one of {len(pages)} page versions)", flush=True)
                sys.exit(1)
    rounds += 1
    if rounds == 1:
        open(ready, "w").close()
print(f"poller: {rounds} rounds, {fetches} requests, {len(pages)} versions of the page, no broken answer")
