"""What several scripts need of a running sidecar, standard library only:
its readiness and the contact form's proof of work, solved as the widget
solves it.

Used by tests/e2e/contact_e2e.py and bench/reliability.py.
"""

import base64
import hashlib
import json
import urllib.request


def ready(proc, base, describe=lambda: ""):
    """True once `base`/readyz answers 200; raises if `proc` has exited."""
    if proc.poll() is not None:
        raise AssertionError(f"the sidecar exited with {proc.returncode}{describe()}")
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def solve(challenge):
    """The `altcha` field for a challenge: counters from 0 until the derived
    key starts with the published prefix."""
    p = challenge["parameters"]
    nonce, salt = bytes.fromhex(p["nonce"]), bytes.fromhex(p["salt"])
    for counter in range(0, 10_000_000):
        key = hashlib.pbkdf2_hmac("sha256", nonce + counter.to_bytes(4, "big"), salt,
                                  p["cost"], p["keyLength"]).hex()
        if key.startswith(p["keyPrefix"]):
            payload = {"challenge": challenge,
                       "solution": {"counter": counter, "derivedKey": key, "time": 1}}
            return base64.b64encode(json.dumps(payload).encode()).decode()
    raise AssertionError("unsolvable challenge")
