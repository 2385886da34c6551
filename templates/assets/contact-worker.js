// Solves an ALTCHA (version 2) proof-of-work challenge off the main thread:
// tries counters from 0 until PBKDF2-SHA-256(nonce ‖ counter as u32 BE,
// salt, cost) starts with the published key prefix. WebCrypto only.
"use strict";

function fromHex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}

function toHex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

self.onmessage = async (event) => {
  const p = event.data.parameters;
  try {
    if (p.algorithm !== "PBKDF2/SHA-256") throw new Error("unsupported algorithm " + p.algorithm);
    const nonce = fromHex(p.nonce);
    const salt = fromHex(p.salt);
    const password = new Uint8Array(nonce.length + 4);
    password.set(nonce);
    const view = new DataView(password.buffer);
    const started = performance.now();
    for (let counter = 0; counter <= 0xffffffff; counter++) {
      view.setUint32(nonce.length, counter, false);
      const key = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
      const bits = await crypto.subtle.deriveBits(
        { name: "PBKDF2", hash: "SHA-256", salt, iterations: p.cost },
        key,
        p.keyLength * 8,
      );
      const derivedKey = toHex(bits);
      if (derivedKey.startsWith(p.keyPrefix)) {
        self.postMessage({ ok: true, solution: { counter, derivedKey, time: Math.round(performance.now() - started) } });
        return;
      }
    }
    throw new Error("no solution");
  } catch (e) {
    self.postMessage({ ok: false, error: String(e) });
  }
};
