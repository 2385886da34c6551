// Headless Chromium (Debian's, driven by playwright-core) on the pages that
// reach the sidecar, as a visitor uses them: pages from SITE, every live
// request to API — the same origin behind a front (nginx, Caddy), or the
// sidecar's own origin in the separate-origin layout (pages on a plain
// static server). The statistics and the globe show the sidecar's data, the
// chat answers with citations on the site, a contact enquiry is sent and
// acknowledged; no console error, no CSP violation, no request to any
// origin but those. Then a page of a THIRD origin: its cross-origin posts to
// the chat and contact routes are refused (403 forbidden_origin) while it
// may read public data. Every step is bounded.
//
//   LIVE_THIRD_DIR=DIR node tests/e2e/live_pages.mjs SITE API THIRD
//
// DIR is the folder THIRD's static server serves; the page is written there.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert, launch, stepper } from "./browser.mjs";

const [site, api, third] = process.argv.slice(2).map((u) => (u || "").replace(/\/$/, ""));
const thirdDir = process.env.LIVE_THIRD_DIR;
if (!site || !api || !third || !thirdDir) {
  throw new Error("usage: LIVE_THIRD_DIR=DIR live_pages.mjs SITE API THIRD");
}
const split = site !== api;
const label = split ? "split origin" : `live pages via ${site}`;
const STEP_MS = 45_000;

const step = stepper(label, STEP_MS);

const browser = await launch();

// Console errors, CSP violations (reported by the page itself), requests by
// origin; a request to any origin but the site's and the API's is aborted.
const log = { errors: [], violations: [], foreign: [], api: [] };
const context = await browser.newContext();
await context.addInitScript(() => {
  document.addEventListener("securitypolicyviolation", (e) => {
    console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
  });
});
await context.route("**/*", (route) => {
  const url = route.request().url();
  if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
  const origin = new URL(url).origin;
  if (origin === api) {
    log.api.push(`${route.request().method()} ${new URL(url).pathname}`);
    return route.continue();
  }
  if (origin === site) return route.continue();
  log.foreign.push(url);
  return route.abort("blockedbyclient");
});
const page = await context.newPage();
page.setDefaultTimeout(20_000);
page.on("console", (m) => {
  if (m.type() === "error") {
    (m.text().includes("Content Security Policy") || m.text().startsWith("CSP violation") ? log.violations : log.errors).push(m.text());
  }
});
page.on("pageerror", (e) => log.errors.push("uncaught: " + e.message));

function clean(where) {
  assert(log.violations.length === 0, `${where}: CSP violations: ${log.violations.join(" | ")}`);
  assert(log.errors.length === 0, `${where}: console errors: ${log.errors.join(" | ")}`);
  assert(log.foreign.length === 0, `${where}: requests to other origins: ${log.foreign.join(", ")}`);
}

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  assert(r.ok, `${url}: HTTP ${r.status}`);
  return r.json();
}

try {
  await step("the CSP names the API origin exactly when it is another", async () => {
    const res = await page.goto(site + "/");
    assert(res.status() === 200, "home answers 200");
    const header = res.headers()["content-security-policy"];
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
    const connect = split ? `connect-src 'self' ${api};` : "connect-src 'self';";
    assert(meta && meta.includes(connect), `the page's CSP has ${connect}: ${meta}`);
    assert(meta.includes(split ? `form-action 'self' ${api}` : "form-action 'self'"), "form-action");
    // A front sends the header too (a plain static server cannot).
    if (!split) assert(header && header.includes(connect) && header.includes("frame-ancestors 'none'"), "the front sends the CSP header: " + header);
    const chatSrc = await page.getAttribute("#chat-open", "data-src");
    const want = (split ? api : "") + "/api/chat.php";
    assert(chatSrc === want, `the header's chat panel posts to ${want}: ${chatSrc}`);
    clean("home");
  });

  await step("statistics: the sidecar's figures on the static page", async () => {
    await page.goto(site + "/docs/data/statistics/");
    await page.locator("#stats dd[data-stat]").first().waitFor();
    const stats = await getJSON(api + "/api/platform-stats.php");
    const shown = await page.locator("#stats time.stats-updated").getAttribute("datetime");
    assert(shown === stats.generated_at, `generated_at ${shown}, the API says ${stats.generated_at}`);
    assert(log.api.includes("GET /api/platform-stats.php"), "the page read the statistics from the API origin");
    clean("statistics");
  });

  await step("globe: as many points as the sidecar returns", async () => {
    const geo = await getJSON(api + "/api/globe-data.php");
    assert(geo.features.length > 0, "the sample has sites");
    await page.goto(site + "/docs/data/globe/");
    const globe = page.locator("#globe[data-points-drawn]");
    await globe.waitFor({ state: "attached" });
    const drawn = Number(await globe.getAttribute("data-points-drawn"));
    assert(drawn === geo.features.length, `drew ${drawn} points, the API has ${geo.features.length}`);
    const listed = Number(await page.locator("#globe-table").getAttribute("data-rows"));
    assert(listed === drawn, `the site table lists ${listed} sites, the globe drew ${drawn}`);
    // The table shows a page of sites at a time.
    const rows = await page.locator("#globe-table tbody tr").count();
    assert(rows === Math.min(drawn, 25), `the site table shows ${rows} rows, want ${Math.min(drawn, 25)}`);
    clean("globe");
  });

  await step("chat: a question answered cross-origin, citations on the site", async () => {
    await page.goto(site + "/chat/");
    await page.fill("#chat-input", "How do I measure nitrate in a stream?");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === api + "/api/chat.php" && r.request().method() === "POST"),
      page.press("#chat-input", "Enter"),
    ]);
    assert(response.status() === 200, "chat HTTP " + response.status());
    assert(response.headers()["access-control-allow-origin"] === site, "exact-origin grant");
    const answer = await response.json();
    // Citations name the site's public origin (the pages' canonical one; a
    // front on a test port is not it).
    const canonical = new URL(await page.getAttribute('link[rel="canonical"]', "href")).origin;
    assert(answer.citations.length > 0, "the answer cites a passage");
    assert(answer.citations.every((c) => new URL(c.url).origin === canonical), `citations point at ${canonical}`);
    await page.locator(".chat-log .chat-turn .chat-text").first().waitFor();
    const href = await page.locator(".chat-log a.chat-source").first().getAttribute("href");
    assert(new URL(href, site).origin === canonical, "the rendered citation links to the site: " + href);
    clean("chat");
  });

  await step("contact: an enquiry sent to the sidecar and acknowledged on the site", async () => {
    await page.goto(site + "/contact/");
    await page.getByLabel("Name").fill("Split Origin Visitor");
    await page.getByLabel("Email").fill("split@visitor.example");
    await page.getByLabel("Topic").selectOption("other");
    await page.getByLabel("Message").fill("Sent from the static site to the API origin.");
    await page.getByLabel("I agree to be contacted").check();
    // A person takes longer than the sidecar's minimum fill time (500 ms here).
    await page.waitForTimeout(1_000);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === api + "/api/contact.php" && r.request().method() === "POST", { timeout: 60_000 }),
      page.getByRole("button", { name: "Send enquiry" }).click(),
    ]);
    if (response.status() !== 201) {
      throw new Error(`contact HTTP ${response.status()}: ${await response.text().catch(() => "")}`);
    }
    await page.waitForURL(new RegExp("^" + site.replace(/[.]/g, "\\.") + "/contact/thanks/\\?reference=ENQ-"), { timeout: 30_000 });
    await page.locator("#contact-receipt:not([hidden])").waitFor();
    const reference = (await page.textContent("#contact-reference")).trim();
    assert(/^ENQ-[0-9A-Z]{6}-[0-9A-Z]{6}$/.test(reference), "reference shown: " + reference);
    assert(log.api.includes("GET /api/contact-challenge"), "the challenge came from the API origin");
    clean("contact");
  }, 90_000);

  await step("a third origin: posts refused with 403, public reads allowed", async () => {
    writeFileSync(join(thirdDir, "index.html"), `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Elsewhere</title></head><body>
<form id="f" method="post" action="${api}/api/contact.php">
<input name="name" value="Mallory"><input name="email" value="mallory@evil.example">
<input name="topic" value="other"><input name="message" value="Cross-origin post."><input name="consent" value="yes">
<button id="send">Send</button></form>
<script src="third.js"></script></body></html>`);
    writeFileSync(join(thirdDir, "third.js"), `window.results = (async () => {
  const out = {};
  try {
    await fetch(${JSON.stringify(api + "/api/chat.php")}, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ message: "hello" }) });
    out.chat = "read";
  } catch (e) { out.chat = "blocked"; }
  try {
    const r = await fetch(${JSON.stringify(api + "/api/platform-stats.php")});
    out.stats = r.status;
  } catch (e) { out.stats = "blocked"; }
  return out;
})();`);
    const other = await browser.newContext();
    const evil = await other.newPage();
    evil.setDefaultTimeout(20_000);
    await evil.goto(third + "/");
    const results = await evil.evaluate(() => window.results);
    assert(results.chat === "blocked", "the third origin could read a chat answer: " + JSON.stringify(results));
    assert(results.stats === 200, "the third origin may read public statistics: " + JSON.stringify(results));
    const [refused] = await Promise.all([
      evil.waitForResponse((r) => r.url() === api + "/api/contact.php"),
      evil.click("#send"),
    ]);
    assert(refused.status() === 403, "the third origin's form post answered " + refused.status());
    const problem = await refused.json();
    assert(problem.code === "forbidden_origin", "code " + problem.code);
    assert(!("access-control-allow-origin" in refused.headers()), "no CORS grant to the third origin");
    await other.close();
  });
} finally {
  await browser.close();
}
console.log(`${label}: browser test passed`);
