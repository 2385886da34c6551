// What a visitor meets first, in headless Chromium against a running
// sidecar, at the widths people use (decision 0235):
//
// - First screen: at 390×844, 360×740 and 320×568 (phones) and at 1280×800
//   and 1920×1080, the home page shows the service's name, a live figure
//   from the statistics route and the whole map of sites without scrolling,
//   under a header at most 120 px tall; the globe page shows the globe. The
//   layout shift while the live data arrive stays under 0.1 (the browser's
//   own layout-shift entries, summed as Lighthouse does).
// - Tables: at 320 and 390 px, on every page with a table, no page scrolls
//   sideways; a table that scrolls inside its box says so above it and keeps
//   its first column in view when scrolled; the reference-data tables of
//   four or more columns are stacked, each cell named by its column.
// - The data page: its downloads (CSV, GeoJSON, the newest snapshot's files)
//   answer with the media type they name, beside the data's licence and how
//   to cite, on the first screen of a phone.
// - Screenshots of the home, globe, statistics, data and an archive page at
//   390, 768, 1280 and 1920 px in the light and the dark theme, into
//   ARTEFACTS/visitor (the first screen; the 390 px ones also whole).
//
//   node tests/e2e/visitor_browser.mjs BASE_URL DIST_DIR
//   env: E2E_ARTEFACTS (default target/e2e-artefacts)
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { launch, stepper } from "./browser.mjs";

const [base, distDir] = process.argv.slice(2);
if (!base || !distDir) {
  console.error("usage: node tests/e2e/visitor_browser.mjs BASE_URL DIST_DIR");
  process.exit(2);
}
const out = join(resolve(process.env.E2E_ARTEFACTS || "target/e2e-artefacts"), "visitor");
mkdirSync(out, { recursive: true });
const step = stepper("visitor", 180_000);
// A step that fails is reported and the next one still runs.
const phase = (name, fn, ms) => step(name, fn, ms).catch((e) => check(false, name, e.stack || String(e)));
const failures = [];
function check(ok, where, what) {
  if (!ok) {
    failures.push(`${where}: ${what}`);
    console.log(`  FAIL ${where}: ${what}`);
  }
  return ok;
}

const HEADER_MAX = 120;
const FIRST_SCREENS = [
  { width: 390, height: 844 },
  { width: 360, height: 740 },
  { width: 320, height: 568 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const SHOT_WIDTHS = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const SHOT_PAGES = {
  home: "/",
  globe: "/docs/data/globe/",
  statistics: "/docs/data/statistics/",
  data: "/docs/data/",
  archive: "/docs/archive/protocols/nitrate/",
};

// Layout shifts as Lighthouse counts them (no shift right after an input),
// summed from the page's first paint on.
const CLS_OBSERVER = `
  window.__cls = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
  }).observe({ type: "layout-shift", buffered: true });
`;

// Where the home page's parts are, once its live figures and map are drawn.
function homeFirstScreen() {
  const box = (sel) => {
    const e = document.querySelector(sel);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height };
  };
  return {
    header: box(".top"),
    brand: box(".brand"),
    figure: box("#stats dd[data-stat]"),
    figureText: (document.querySelector("#stats dd[data-stat]") || {}).textContent || "",
    map: box("#site-map"),
    scrollY: window.scrollY,
    cls: window.__cls,
  };
}

const browser = await launch();
try {
  await phase("first screen: name, a live figure and the map at phone and desktop sizes", async () => {
    const rows = [];
    for (const size of FIRST_SCREENS) {
      const where = `home at ${size.width}×${size.height}`;
      const context = await browser.newContext({ viewport: size });
      await context.addInitScript(CLS_OBSERVER);
      const page = await context.newPage();
      await page.goto(base + "/");
      await page.locator("#stats dd[data-stat]").first().waitFor();
      await page.locator("#site-map[data-points-drawn]").waitFor({ state: "attached" });
      await page.waitForTimeout(300);
      const m = await page.evaluate(homeFirstScreen);
      const h = size.height;
      check(m.header && m.header.height <= HEADER_MAX, where, `the header is ${Math.round(m.header?.height)} px tall (at most ${HEADER_MAX})`);
      check(m.brand && m.brand.top >= 0 && m.brand.bottom <= h, where, "the service's name is not on the first screen");
      check(m.figure && m.figure.bottom <= h && /\d/.test(m.figureText), where, `the first live figure ends at ${Math.round(m.figure?.bottom)} px, below the first screen (${h})`);
      check(m.map && m.map.bottom <= h + 0.5 && m.map.height > 100, where, `the map runs from ${Math.round(m.map?.top)} to ${Math.round(m.map?.bottom)} px, the first screen ends at ${h}`);
      check(m.cls < 0.1, where, `layout shift ${m.cls.toFixed(3)} while the live data arrived (want < 0.1)`);
      rows.push(`${size.width}×${size.height}: header ${Math.round(m.header.height)} px, first live figure ${Math.round(m.figure.top)}-${Math.round(m.figure.bottom)} px, map ${Math.round(m.map.top)}-${Math.round(m.map.bottom)} px, layout shift ${m.cls.toFixed(3)}`);
      // The globe page: the globe starts on the first screen.
      await page.goto(base + "/docs/data/globe/");
      await page.locator("#globe canvas").first().waitFor();
      await page.waitForTimeout(300);
      const g = await page.evaluate(() => ({
        top: document.querySelector("#globe canvas").getBoundingClientRect().top,
        header: document.querySelector(".top").getBoundingClientRect().height,
        cls: window.__cls,
      }));
      check(g.top < h - 100, `globe at ${size.width}×${h}`, `the globe starts at ${Math.round(g.top)} px, not on the first screen (${h})`);
      check(g.header <= HEADER_MAX, `globe at ${size.width}×${h}`, `the header is ${Math.round(g.header)} px tall`);
      check(g.cls < 0.1, `globe at ${size.width}×${h}`, `layout shift ${g.cls.toFixed(3)}`);
      rows.push(`  globe page: globe at ${Math.round(g.top)} px, layout shift ${g.cls.toFixed(3)}`);
      await context.close();
    }
    for (const r of rows) console.log("  " + r);
  });

  await phase("the phone header: search and menu open under the one row, and close with Escape", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(base + "/docs/data/");
    check(!(await page.locator("#site-search").isVisible()), "header", "the search box takes room before it is asked for");
    check(!(await page.locator("#top-menu").isVisible()), "header", "the menu takes room before it is asked for");
    await page.locator("#search-toggle").click();
    check(await page.locator("#site-search").isVisible(), "header", "the search button does not show the search box");
    check(await page.evaluate(() => document.activeElement.id) === "site-search", "header", "the search box does not take focus");
    await page.keyboard.type("nitrate");
    await page.locator("#search-results li").first().waitFor();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    check(!(await page.locator("#site-search").isVisible()), "header", "Escape does not close the search box");
    check(await page.evaluate(() => document.activeElement.id) === "search-toggle", "header", "focus does not return to the search button");
    await page.locator("#menu-toggle").click();
    check(await page.locator("#top-menu a").first().isVisible(), "header", "the menu button does not show the navigation");
    check(await page.locator("#chat-open").isVisible() && await page.locator("#theme-toggle").isVisible(), "header", "the menu lacks the chat and theme buttons");
    check((await page.locator("#menu-toggle").getAttribute("aria-expanded")) === "true", "header", "the menu button does not say it is expanded");
    await context.close();
  });

  await phase("tables at 320 and 390 px: a cue and the first column in view, or stacked", async () => {
    const pages = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name === "index.html" && readFileSync(p, "utf8").includes("<table")) {
          pages.push(p.slice(distDir.length).replace(/index\.html$/, "").replace(/^\/?/, "/"));
        }
      }
    };
    walk(distDir);
    check(pages.includes("/docs/archive/reference-data/"), "tables", "the reference-data page has no table");
    let scrolling = 0;
    let stacked = 0;
    for (const width of [320, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      for (const path of pages) {
        const where = `${path} at ${width} px`;
        await page.goto(base + path);
        if (path === "/docs/data/globe/") await page.locator("#globe-table tbody tr[data-site]").first().waitFor();
        await page.waitForTimeout(250);
        const found = await page.evaluate(async () => {
          const res = { wide: document.documentElement.scrollWidth - window.innerWidth, tables: [] };
          for (const t of document.querySelectorAll("main table")) {
            if (!t.checkVisibility()) continue;
            const box = t.parentElement.classList.contains("table-wrap") ? t.parentElement : t;
            const one = {
              caption: (t.caption?.textContent || t.tHead?.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40),
              cols: t.tHead ? t.tHead.rows[0].cells.length : 0,
              stacked: t.classList.contains("table-stacked"),
              scrolls: box.scrollWidth > box.clientWidth + 1,
            };
            if (one.stacked) {
              const cells = [...t.querySelectorAll("tbody td:not(:first-child)")];
              one.unlabelled = cells.filter((c) => !c.getAttribute("data-label") || !getComputedStyle(c, "::before").content.includes(c.getAttribute("data-label"))).length;
              one.roleOk = t.getAttribute("role") === "table" && [...t.querySelectorAll("tr")].every((r) => r.getAttribute("role") === "row");
            }
            if (one.scrolls) {
              const cue = box.previousElementSibling;
              one.cue = !!(cue && cue.classList.contains("table-cue") && cue.checkVisibility() && cue.getBoundingClientRect().height > 0);
              box.scrollLeft = box.scrollWidth;
              await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
              const first = t.querySelector("tbody tr > :first-child");
              const b = box.getBoundingClientRect();
              const f = first.getBoundingClientRect();
              one.firstInView = f.left >= b.left - 1 && f.right <= b.right + 1;
              box.scrollLeft = 0;
            }
            res.tables.push(one);
          }
          return res;
        });
        check(found.wide <= 0, where, `the page is ${found.wide} px wider than the screen`);
        for (const t of found.tables) {
          const what = `table “${t.caption}”`;
          if (t.stacked) {
            stacked++;
            check(!t.scrolls, where, `${what} is stacked and still scrolls`);
            check(t.unlabelled === 0, where, `${what}: ${t.unlabelled} stacked cells without their column's name`);
            check(t.roleOk, where, `${what}: the stacked table lost its table roles`);
          } else if (t.scrolls) {
            scrolling++;
            check(t.cue, where, `${what} scrolls sideways with no visible cue`);
            check(t.firstInView, where, `${what}: the first column leaves the view when the table is scrolled`);
          }
          if (path === "/docs/archive/reference-data/" && t.cols >= 4) {
            check(t.stacked || !t.scrolls, where, `${what} (${t.cols} columns) scrolls instead of being stacked`);
          }
        }
      }
      await context.close();
    }
    console.log(`  ${pages.length} pages with tables; ${scrolling} scrolling tables with a cue, ${stacked} stacked, over both widths`);
  });

  await phase("the data page: its downloads answer with the type they name, with the licence and how to cite, on the phone's first screen", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(base + "/docs/data/");
    const top = await page.locator("#downloads").evaluate((e) => e.getBoundingClientRect().top);
    check(top < 844, "data page", `the downloads start at ${Math.round(top)} px, below the first screen`);
    const links = await page.locator(".download-list a").evaluateAll((as) => as.map((a) => ({ href: a.href, type: a.type, text: a.textContent.trim() })));
    check(links.some((l) => l.type.startsWith("text/csv")) && links.some((l) => l.type === "application/geo+json"), "data page", "no CSV or no GeoJSON download");
    for (const l of links) {
      const res = await page.request.get(l.href);
      const got = (res.headers()["content-type"] || "").split(";")[0].trim();
      check(res.status() === 200 && got === l.type.split(";")[0].trim(), "data page", `“${l.text}” (${l.href}) answered ${res.status()} ${got}, the link says ${l.type}`);
    }
    const terms = await page.locator(".download-terms").innerText();
    check(/Licence: .+/.test(terms) && /How to cite:/.test(terms), "data page", `the downloads lack the licence or how to cite: “${terms}”`);
    const licence = await page.locator(".download-terms a").first().getAttribute("href");
    const api = await (await page.request.get(base + "/api/observations-data.php?limit=1")).json();
    check(licence === api.licence?.url, "data page", `the downloads' licence ${licence} is not the data's (${api.licence?.url})`);
    console.log(`  ${links.length} downloads, licence ${licence}`);
    await context.close();
  });

  await phase("screenshots: five pages at 390, 768, 1280 and 1920 px, light and dark", async () => {
    let n = 0;
    for (const scheme of ["light", "dark"]) {
      for (const size of SHOT_WIDTHS) {
        const context = await browser.newContext({ viewport: size, colorScheme: scheme });
        const page = await context.newPage();
        for (const [name, path] of Object.entries(SHOT_PAGES)) {
          await page.goto(base + path);
          if (name === "home" || name === "statistics") await page.locator("#stats dd[data-stat]").first().waitFor();
          if (name === "globe") await page.locator("#globe canvas").first().waitFor();
          await page.waitForTimeout(400);
          await page.screenshot({ path: join(out, `${name}-${size.width}-${scheme}.png`) });
          n++;
          if (size.width === 390) {
            await page.screenshot({ path: join(out, `${name}-${size.width}-${scheme}-whole.png`), fullPage: true });
            n++;
          }
        }
        await context.close();
      }
    }
    console.log(`  ${n} screenshots in ${out}`);
  }, 300_000);
} catch (e) {
  failures.push(e.stack || String(e));
  console.log(`  FAIL ${e.stack || e}`);
} finally {
  await browser.close();
}
if (failures.length) {
  console.log(`visitor: ${failures.length} failure(s)`);
  process.exit(1);
}
console.log("visitor: all checks passed");
