// Site search side by side (a benchmark, not a test): the header search box
// of the built site against Pagefind over the same built site, both served
// by the same static server with the same compression, in headless Chromium.
//
//   node bench/search.mjs OURS_BASE PAGEFIND_BASE QUERIES.json
//
// OURS_BASE serves the built site; PAGEFIND_BASE serves a copy of it that
// `pagefind --site` indexed, with a blank page `/pf-bench.html` (no CSP, so
// Pagefind's WebAssembly may run). For each engine it prints the requests
// and bytes (headers and body, as transferred) of a first query from a
// fresh page and of a misspelled one after it, then the top three URLs of
// every query of QUERIES.json and how often the engines agree. The header
// search's query counts the Markdown twins it reads for the shown results'
// snippets. PAGEFIND_BASE `-` measures the header search alone.
import { readFileSync } from "node:fs";
import { launch } from "../tests/e2e/browser.mjs";

const [ours, pagefind, queriesFile] = process.argv.slice(2);
if (!ours || !pagefind || !queriesFile) {
  console.error("usage: node bench/search.mjs OURS_BASE PAGEFIND_BASE QUERIES.json");
  process.exit(2);
}
const { first, misspelled, queries } = JSON.parse(readFileSync(queriesFile, "utf8"));
const browser = await launch();

// A page whose requests (after it loaded) are counted.
async function counted(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const traffic = { requests: 0, bytes: 0, pending: [] };
  page.on("requestfinished", (request) => {
    traffic.pending.push(
      request.sizes().then(
        (s) => {
          traffic.requests += 1;
          traffic.bytes += s.responseBodySize + s.responseHeadersSize;
        },
        () => {},
      ),
    );
  });
  await page.goto(url);
  await page.waitForLoadState("networkidle");
  const measure = async (run) => {
    await Promise.all(traffic.pending);
    traffic.requests = 0;
    traffic.bytes = 0;
    traffic.pending = [];
    const t0 = Date.now();
    const result = await run();
    const ms = Date.now() - t0;
    await page.waitForLoadState("networkidle");
    await Promise.all(traffic.pending);
    return { requests: traffic.requests, bytes: traffic.bytes, ms, result };
  };
  return { context, page, measure };
}

// The header search box: type, wait for the list of that query.
const oursEngine = {
  name: "header search (split index)",
  url: ours + "/",
  async search(page, q) {
    const box = page.locator("#site-search");
    await box.fill(q);
    await page.locator(`#search-results[data-query="${q}"]`).waitFor({ state: "attached", timeout: 30000 });
    await page.locator(`#search-results[data-snippets="${q}"]`).waitFor({ state: "attached", timeout: 30000 });
    return page.locator("#search-results li[data-url]").evaluateAll((lis) => lis.slice(0, 3).map((li) => li.dataset.url));
  },
};

// Pagefind's JavaScript API, as its UI calls it.
const pagefindEngine = {
  name: "Pagefind",
  url: pagefind + "/pf-bench.html",
  async search(page, q) {
    return page.evaluate(async (query) => {
      const pf = await import("/pagefind/pagefind.js");
      const found = await pf.search(query);
      const top = await Promise.all(found.results.slice(0, 3).map((r) => r.data()));
      return top.map((d) => new URL(d.url, location.href).pathname.replace(/index\.html$/, ""));
    }, q);
  },
};

const tops = {};
console.log("| engine | first query: requests | bytes | ms | misspelled: requests | bytes | ms |");
console.log("|---|---|---|---|---|---|---|");
const engines = pagefind === "-" ? [oursEngine] : [oursEngine, pagefindEngine];
for (const engine of engines) {
  const { context, page, measure } = await counted(engine.url);
  const a = await measure(() => engine.search(page, first));
  const b = await measure(() => engine.search(page, misspelled));
  console.log(`| ${engine.name} | ${a.requests} | ${a.bytes} | ${a.ms} | ${b.requests} | ${b.bytes} | ${b.ms} |`);
  console.log(`<!-- ${engine.name}: "${first}" → ${JSON.stringify(a.result)}; "${misspelled}" → ${JSON.stringify(b.result)} -->`);
  tops[engine.name] = [];
  let requests = 0;
  let bytes = 0;
  for (const q of queries) {
    const r = await measure(() => engine.search(page, q));
    requests += r.requests;
    bytes += r.bytes;
    tops[engine.name].push(r.result);
  }
  console.log(`<!-- ${engine.name}: ${queries.length} more queries in the same page: ${requests} requests, ${bytes} bytes -->`);
  await context.close();
}
await browser.close();
if (engines.length === 1) process.exit(0);

const [mine, theirs] = [tops[oursEngine.name], tops[pagefindEngine.name]];
let sameFirst = 0;
let overlap = 0;
console.log("");
console.log("| query | header search, top 3 | Pagefind, top 3 |");
console.log("|---|---|---|");
queries.forEach((q, i) => {
  const a = mine[i] || [];
  const b = theirs[i] || [];
  if (a[0] && a[0] === b[0]) sameFirst += 1;
  overlap += a.filter((u) => b.includes(u)).length;
  console.log(`| ${q} | ${a.join(" ")} | ${b.join(" ")} |`);
});
console.log("");
console.log(`${queries.length} queries: the same first result for ${sameFirst}; ${overlap} of ${3 * queries.length} top-3 places shared`);
