// The site's charts, drawn by the pages themselves in headless Chromium,
// checked for telling the truth: on the globe page, for every site of the
// globe route (its first parameter, and every parameter of the busiest
// site), and on the statistics page (the monthly bars), at 320 and 1280 px:
// - every mark (point, flagged diamond, line, bar, the latest reading's
//   ring) lies inside the plot rectangle (`rect.chart-plot`);
// - the y axis's ticks reach below the data's minimum and above its maximum
//   (from zero for bars), the x axis's first and last ticks are no later
//   than the first reading and no earlier than the last;
// - the tick labels do not overlap and stay inside the picture, and the
//   page does not scroll sideways;
// - the latest reading is marked, with its value and date written beside it;
// - the chart is described (its accessible description, computed by the
//   browser, holds the summary sentence) and its table is in the
//   accessibility tree;
// - the arrow keys move along the readings, and the live readout names a
//   reading of the table.
// It also fetches the site detail's download links (CSV and GeoJSON of the
// site's observations): 200, the right media type, only that site's rows.
// The worst overflow found (px of a mark beyond the plot) is printed.
//
//   node tests/e2e/charts_browser.mjs BASE_URL
//   env: CHROMIUM (default /usr/bin/chromium)
import { launch, assert, stepper } from "./browser.mjs";

const base = (process.argv[2] || "").replace(/\/$/, "");
if (!base) {
  console.error("usage: node tests/e2e/charts_browser.mjs BASE_URL");
  process.exit(2);
}
const step = stepper("charts", 60_000);
const WIDTHS = [320, 1280];
const failures = [];
function check(ok, where, what) {
  if (!ok) {
    failures.push(`${where}: ${what}`);
    if (failures.length <= 40) console.log(`  FAIL ${where}: ${what}`);
  }
  return ok;
}
const worst = { above: 0, below: 0, left: 0, right: 0, where: "" };
function record(where, o) {
  for (const k of ["above", "below", "left", "right"]) {
    if (o[k] > worst[k]) {
      worst[k] = o[k];
      if (o[k] === Math.max(worst.above, worst.below, worst.left, worst.right)) worst.where = where;
    }
  }
}

async function getJSON(url) {
  const r = await fetch(url, { signal: AbortSignal.timeout(15000) });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

// Runs in the page: what one chart shows, measured in screen pixels. The
// plot is `rect.chart-plot`; a chart without one is measured against its
// grid and axis lines, which is where it drew its plot.
function measure(figure) {
  const svg = figure.querySelector("svg.chart");
  if (!svg) return { missing: true };
  const box = (e) => e.getBoundingClientRect();
  const plotEl = svg.querySelector("rect.chart-plot");
  let plot;
  if (plotEl) plot = box(plotEl);
  else {
    const rs = [...svg.querySelectorAll("line")].map(box);
    plot = {
      left: Math.min(...rs.map((r) => r.left)), right: Math.max(...rs.map((r) => r.right)),
      top: Math.min(...rs.map((r) => r.top)), bottom: Math.max(...rs.map((r) => r.bottom)),
    };
  }
  const over = { above: 0, below: 0, left: 0, right: 0, marks: 0 };
  const marks = svg.querySelectorAll("circle, polygon, polyline, rect:not(.chart-plot)");
  for (const m of marks) {
    const r = box(m);
    if (r.width === 0 && r.height === 0) continue;
    over.marks++;
    over.above = Math.max(over.above, plot.top - r.top);
    over.below = Math.max(over.below, r.bottom - plot.bottom);
    over.left = Math.max(over.left, plot.left - r.left);
    over.right = Math.max(over.right, r.right - plot.right);
  }
  const num = (t) => Number(t.getAttribute("data-value") ?? t.textContent.replace(/[^0-9.\-]/g, ""));
  const yTicks = [...svg.querySelectorAll("text.chart-tick")].filter((t) => t.getAttribute("text-anchor") === "end" && !t.hasAttribute("data-time"));
  const yValues = yTicks.map(num).filter((v) => !isNaN(v));
  const xTimes = [...svg.querySelectorAll("text.chart-tick[data-time]")].map((t) => Date.parse(t.getAttribute("data-time")));
  // Tick labels: none overlapping another, all inside the picture.
  const s = box(svg);
  const labels = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim()).map((t) => ({ t: t.textContent, r: box(t) }));
  const overlaps = [];
  const outside = [];
  for (let i = 0; i < labels.length; i++) {
    const a = labels[i].r;
    if (a.left < s.left - 0.5 || a.right > s.right + 0.5 || a.top < s.top - 0.5 || a.bottom > s.bottom + 0.5) outside.push(labels[i].t);
    for (let j = i + 1; j < labels.length; j++) {
      const b = labels[j].r;
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (x > 0.5 && y > 0.5) overlaps.push(`“${labels[i].t}” and “${labels[j].t}”`);
    }
  }
  const latest = svg.querySelector(".chart-latest");
  const latestLabel = svg.querySelector(".chart-latest-label");
  return {
    over, yValues, xTimes, overlaps, outside,
    latest: !!latest,
    latestLabel: latestLabel ? latestLabel.textContent : "",
    focusable: svg.getAttribute("tabindex") === "0",
    describedby: svg.getAttribute("aria-describedby") || "",
    overflowPage: document.documentElement.scrollWidth - window.innerWidth,
    svgWidth: s.width,
  };
}

// The chart's accessible description, and whether its table is exposed,
// as Chromium's accessibility tree has them.
async function accessibility(page, cdp, scope, tableSelector) {
  const { root } = await cdp.send("DOM.getDocument", { depth: 0 });
  const node = async (sel) => (await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector: sel })).nodeId;
  const svgId = await node(`${scope} svg.chart`);
  const tableId = await node(tableSelector);
  const ax = async (id) => (id ? (await cdp.send("Accessibility.getPartialAXTree", { nodeId: id, fetchRelatives: false })).nodes[0] : null);
  const a = await ax(svgId);
  const t = await ax(tableId);
  return {
    name: a && a.name ? a.name.value : "",
    description: a && a.description ? a.description.value : "",
    role: a && a.role ? a.role.value : "",
    tableRole: t && !t.ignored && t.role ? t.role.value : "",
  };
}

// Checks one measured chart against its table's values.
function judge(where, m, values, firstTime, lastTime, latestTexts, bars) {
  if (!check(!m.missing, where, "no chart drawn")) return;
  record(where, m.over);
  const o = m.over;
  check(o.marks > 0, where, "no mark drawn");
  check(Math.max(o.above, o.below, o.left, o.right) <= 0.5, where,
    `marks beyond the plot: ${o.above.toFixed(1)} px above, ${o.below.toFixed(1)} below, ${o.left.toFixed(1)} left, ${o.right.toFixed(1)} right`);
  const lo = Math.min(...values), hi = Math.max(...values);
  const y0 = Math.min(...m.yValues), y1 = Math.max(...m.yValues);
  check(y0 <= (bars ? 0 : lo) && y1 >= hi, where, `the y axis runs ${y0}..${y1}, the data ${lo}..${hi}${bars ? " (bars from 0)" : ""}`);
  if (firstTime !== undefined) {
    check(m.xTimes.length >= 1 && Math.min(...m.xTimes) <= firstTime && Math.max(...m.xTimes) >= lastTime, where,
      `the x axis's ticks (${m.xTimes.length}) do not cover the first and last reading`);
  }
  check(m.overlaps.length === 0, where, `overlapping labels: ${m.overlaps.slice(0, 3).join("; ")}`);
  check(m.outside.length === 0, where, `labels outside the picture: ${m.outside.slice(0, 3).join("; ")}`);
  check(m.latest, where, "the latest reading is not marked");
  check(latestTexts.every((t) => m.latestLabel.includes(t)), where, `the latest reading's label “${m.latestLabel}” lacks ${latestTexts.join(", ")}`);
  check(m.focusable, where, "the chart cannot be focused");
  check(m.overflowPage <= 0, where, `the page scrolls sideways by ${m.overflowPage} px`);
}

const browser = await launch();
let charts = 0;
try {
  const geo = await getJSON(base + "/api/globe-data.php");
  const sites = geo.features.map((f) => {
    const p = f.properties;
    // The site as globe.js hands it to readings.js.
    return {
      id: f.id, name: p.name, country: p.country, water: p.water_body_type, count: p.observations,
      latest: p.latest_observed_at, parameters: p.parameters, lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1],
    };
  });
  assert(sites.length > 0, "the globe route has sites");
  const busiest = sites.slice().sort((a, b) => b.count - a.count)[0];

  for (const width of WIDTHS) {
    await step(`globe at ${width} px: every site's chart (${sites.length} sites, and ${busiest.parameters.length} parameters of ${busiest.id})`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-GB" });
      const page = await context.newPage();
      page.setDefaultTimeout(15000);
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(base + "/docs/data/globe/");
      await page.locator("#globe-table tbody tr[data-site]").first().waitFor();
      // Select each site as the globe does (its "siteselect" event), wait
      // for its chart, then measure it; a parameter by its button.
      const jobs = sites.map((s) => ({ site: s, parameter: null }));
      busiest.parameters.forEach((p, i) => jobs.push({ site: busiest, parameter: p, first: i === 0 }));
      const results = await page.evaluate(async ({ jobs, measureSrc }) => {
        const measure = new Function("return " + measureSrc)();
        const box = document.getElementById("site-detail");
        const loaded = (want) => new Promise((resolve) => {
          const done = () => {
            const v = box.getAttribute("data-loaded") || "";
            const area = box.querySelector(".chart-area");
            return v !== "" && v.startsWith(want) && area && area.getAttribute("aria-busy") === "false";
          };
          if (done()) return resolve();
          const mo = new MutationObserver(() => {
            if (done()) {
              mo.disconnect();
              resolve();
            }
          });
          mo.observe(box, { attributes: true, subtree: true, childList: true });
          setTimeout(() => {
            mo.disconnect();
            resolve();
          }, 10000);
        });
        const out = [];
        for (const j of jobs) {
          if (!j.site.parameters.length) continue;
          let parameter = j.parameter;
          if (j.first) {
            box.removeAttribute("data-loaded");
            document.dispatchEvent(new CustomEvent("siteselect", { detail: j.site }));
            await loaded(j.site.id + "/");
          }
          if (parameter === null) {
            box.removeAttribute("data-loaded");
            document.dispatchEvent(new CustomEvent("siteselect", { detail: j.site }));
            await loaded(j.site.id + "/");
            parameter = (box.getAttribute("data-loaded") || "").split("/")[1];
          } else {
            const b = box.querySelector(`.chart-params button[data-parameter="${parameter}"]`);
            if (!b) {
              out.push({ where: `${j.site.id}/${parameter}`, m: { missing: true } });
              continue;
            }
            b.click();
            await loaded(`${j.site.id}/${parameter}`);
          }
          const rows = [...box.querySelectorAll(".chart-table tbody tr")];
          const values = rows.map((tr) => Number(tr.querySelector("td[data-value]").getAttribute("data-value")));
          const times = rows.map((tr) => Date.parse(tr.querySelector("time").getAttribute("datetime")));
          const last = rows[rows.length - 1];
          const fig = box.querySelector(".chart-figure");
          out.push({
            where: `${j.site.id}/${parameter}`,
            m: fig ? measure(fig) : { missing: true },
            values, first: Math.min(...times), last: Math.max(...times),
            latest: last ? [last.querySelector("td[data-value]").textContent, last.querySelector("time").textContent] : [],
          });
        }
        return out;
      }, { jobs, measureSrc: measure.toString() });
      for (const r of results) {
        charts++;
        if (!r.values || !r.values.length) {
          check(false, `${r.where} at ${width}px`, "no readings charted");
          continue;
        }
        judge(`${r.where} at ${width}px`, r.m, r.values, r.first, r.last, r.latest, false);
      }
      check(errors.length === 0, `globe at ${width}px`, `console errors: ${errors.slice(0, 3).join(" | ")}`);
      await context.close();
    }, 90_000);
  }

  await step("globe: the busiest site's chart by keyboard, its description, its downloads, and a smaller site's", async () => {
    const context = await browser.newContext({ viewport: { width: 320, height: 800 }, locale: "en-GB" });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    await page.goto(base + "/docs/data/globe/");
    await page.locator("#globe-table tbody tr[data-site]").first().waitFor();
    await page.evaluate((s) => document.dispatchEvent(new CustomEvent("siteselect", { detail: s })), busiest);
    await page.locator(`#site-detail[data-loaded^="${busiest.id}/"] .chart-area[aria-busy="false"]`).waitFor();
    await keyboard(page, "#site-detail", ".chart-table tbody tr", "globe");
    const cdp = await context.newCDPSession(page);
    const a = await accessibility(page, cdp, "#site-detail", "#site-detail .chart-table table");
    const summary = await page.locator("#site-detail .chart-summary").textContent().catch(() => "");
    check(summary && a.description.includes(summary.trim()), "globe", `the chart's description “${a.description}” does not hold its summary “${summary}”`);
    check(a.tableRole === "table", "globe", `the readings' table is not in the accessibility tree (${a.tableRole})`);
    await downloads(page, busiest);
    // A smaller site: its files hold all its observations.
    const small = sites.filter((x) => x.count > 0 && x.count <= 1000).sort((a, b) => b.count - a.count)[0];
    if (small) {
      await page.evaluate((s) => document.dispatchEvent(new CustomEvent("siteselect", { detail: s })), small);
      await page.locator(`#site-detail[data-loaded^="${small.id}/"]`).waitFor();
      await downloads(page, small);
    }
    await context.close();
  });

  for (const width of WIDTHS) {
    await step(`statistics at ${width} px: the monthly chart`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-GB" });
      const page = await context.newPage();
      page.setDefaultTimeout(15000);
      await page.goto(base + "/docs/data/statistics/");
      await page.locator("#stats .monthly-table tbody tr").first().waitFor();
      const r = await page.evaluate((measureSrc) => {
        const measure = new Function("return " + measureSrc)();
        const rows = [...document.querySelectorAll(".monthly-table tbody tr")];
        const values = rows.flatMap((tr) => [...tr.querySelectorAll("td[data-value]")].map((td) => Number(td.getAttribute("data-value"))));
        const last = rows[rows.length - 1];
        return {
          m: measure(document.querySelector("#stats .chart-figure")),
          values,
          latest: [last.querySelector("th").textContent, ...[...last.querySelectorAll("td")].map((td) => td.textContent)],
        };
      }, measure.toString());
      charts++;
      judge(`statistics at ${width}px`, r.m, r.values, undefined, undefined, r.latest, true);
      if (width === 320) {
        await keyboard(page, "#stats", ".monthly-table tbody tr", "statistics");
        const cdp = await context.newCDPSession(page);
        const a = await accessibility(page, cdp, "#stats", "#stats .monthly-table");
        const summary = await page.locator("#stats .chart-summary").textContent().catch(() => "");
        check(summary && a.description.includes(summary.trim()), "statistics", `the chart's description “${a.description}” does not hold its summary “${summary}”`);
        check(a.tableRole === "table", "statistics", `the monthly table is not in the accessibility tree (${a.tableRole})`);
      }
      await context.close();
    });
  }
} finally {
  await browser.close();
}

// The site detail's downloads: the site's observations as CSV and as
// GeoJSON, on the page's API prefix; 200, the media type, only the site's
// rows, as many as it has up to a page of 1,000, and a busier site's links
// say they are a page.
async function downloads(page, site) {
  const want = Math.min(site.count, 1000);
  for (const [format, type] of [["csv", "text/csv"], ["geojson", "application/geo+json"]]) {
    const link = page.locator(`#site-detail a[data-download="${format}"]`);
    if (!check((await link.count()) === 1, "downloads", `no ${format} link in the detail of ${site.id}`)) continue;
    const href = await link.evaluate((e) => e.href);
    check(href.startsWith(base + "/api/"), "downloads", `${href} is not on the page's API prefix`);
    const r = await fetch(href, { signal: AbortSignal.timeout(15000) });
    check(r.status === 200, "downloads", `${href}: HTTP ${r.status}`);
    check((r.headers.get("content-type") || "").startsWith(type), "downloads", `${href}: Content-Type ${r.headers.get("content-type")}, want ${type}`);
    const body = await r.text();
    let ids;
    if (format === "csv") {
      const lines = body.trim().split(/\r?\n/);
      const col = lines[0].split(",").indexOf("site_id");
      ids = lines.slice(1).map((l) => l.split(",")[col]);
    } else {
      ids = JSON.parse(body).features.map((f) => f.properties.site_id);
    }
    check(ids.length > 0 && ids.every((x) => x === site.id), "downloads", `${href} holds ${ids.filter((x) => x !== site.id).length} rows of other sites (of ${ids.length})`);
    check(ids.length === want, "downloads", `${href} holds ${ids.length} rows, the site ${site.count} observations`);
    console.log(`  ${format} of ${site.id}: ${ids.length} rows of ${site.count} (${r.headers.get("content-type")})`);
  }
  const text = await page.locator("#site-detail .chart-downloads").textContent();
  const fmt = new Intl.NumberFormat("en");
  check(text.includes(site.count > 1000 ? `newest ${fmt.format(1000)} of ${fmt.format(site.count)}` : `${fmt.format(site.count)} observations`),
    "downloads", `the links of ${site.id} (${site.count} observations) say “${text}”`);
}

// Focus the chart, press the arrow keys: the readout changes each time and
// names a row of the table (its first cell and one of its values).
async function keyboard(page, scope, rowSelector, where) {
  const svg = page.locator(`${scope} svg.chart`);
  if (!check((await svg.getAttribute("tabindex")) === "0", where, "the chart is not focusable")) return;
  await svg.focus();
  const readout = page.locator(`${scope} .chart-readout`);
  if (!check((await readout.count()) === 1, where, "no readout")) return;
  check((await readout.getAttribute("aria-live")) === "polite", where, "the readout is not a live region");
  const rows = await page.locator(`${scope} ${rowSelector}`).evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent.trim()))
  );
  const seen = [];
  for (const key of ["End", "ArrowLeft", "ArrowLeft", "Home", "ArrowRight"]) {
    await page.keyboard.press(key);
    const text = (await readout.textContent()).trim();
    check(!seen.length || text !== seen[seen.length - 1], where, `${key} did not change the readout (“${text}”)`);
    const row = rows.find((cells) => text.includes(cells[0]) && cells.slice(1).some((c) => c && text.includes(c)));
    check(!!row, where, `the readout “${text}” names no row of the table`);
    seen.push(text);
  }
  const highlighted = await page.locator(`${scope} svg.chart .chart-focus`).count();
  check(highlighted === 1, where, `${highlighted} highlighted points, want 1`);
  console.log(`  ${where} keyboard: ${seen.slice(0, 2).join(" → ")} …`);
}

console.log(`charts: ${charts} charts measured; worst overflow ${Math.max(worst.above, worst.below, worst.left, worst.right).toFixed(1)} px ` +
  `(above ${worst.above.toFixed(1)}, below ${worst.below.toFixed(1)}, left ${worst.left.toFixed(1)}, right ${worst.right.toFixed(1)}) at ${worst.where || "-"}`);
if (failures.length) {
  console.log(`charts: ${failures.length} failure(s)`);
  process.exit(1);
}
console.log("charts: all checks passed");
