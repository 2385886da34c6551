// A site's recent readings in #site-detail (data-src: the observations
// route), shown when a site is selected on the globe or in the site table
// (globe.js sends a "siteselect" event with the site). For each parameter
// measured there, the last readings are drawn as an inline SVG chart (dates
// on the x axis in the page's language, the unit on the y axis, readings
// with a quality flag other than "valid" marked, the latest one ringed and
// labelled, every mark inside the plot's rectangle) with a summary sentence
// above it and the same readings in a table beneath it. The chart takes the
// focus: the arrow keys step through the readings and a live readout names
// each. The detail also links the site's observations as CSV and GeoJSON
// (decision 0241). Without #site-detail, this does nothing.
(function () {
  "use strict";
  var box = document.getElementById("site-detail");
  if (!box) return;
  var src = box.getAttribute("data-src") || "/api/observations-data.php";
  // The interface words in the page's language (words.{code}.js).
  var say = window.uiWord;
  var fill = window.uiFill;
  var lang = document.documentElement.lang || "en";
  var num = new Intl.NumberFormat(lang);
  // Dates in the page's language, as the reader writes them: the browser's
  // own variant of that language (en-GB, en-US) when it names one.
  var dates = window.uiLocale();
  var day = new Intl.DateTimeFormat(dates, { dateStyle: "medium" });
  var month = new Intl.DateTimeFormat(dates, { month: "short", year: "numeric" });
  var LIMIT = 40;
  var TIMEOUT_MS = 15000;
  var SVG = "http://www.w3.org/2000/svg";
  // The parameters' names (pH is a symbol, the same in every language).
  var NAMES = {
    nitrate: say("readings.nitrate"),
    nitrite: say("readings.nitrite"),
    phosphate: say("readings.phosphate"),
    turbidity: say("readings.turbidity"),
    temperature: say("readings.temperature"),
    ph: "pH",
    ammonium: say("readings.ammonium"),
    dissolved_oxygen: say("readings.dissolved_oxygen"),
  };
  var cache = {};
  var current = null; // the selected site
  var serial = 0; // the latest request, so an older answer never wins

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      e.setAttribute(k, String(attrs[k]));
    });
    if (parent) parent.appendChild(e);
    return e;
  }
  // A word of the page's language for a value of the data's vocabulary
  // (`readings.water_river`, `readings.flag_valid`); another value as the
  // route writes it.
  function wordOf(prefix, value) {
    var key = "readings." + prefix + value;
    var word = value ? say(key) : "";
    return word && word !== key ? word : String(value || "").replace(/_/g, " ");
  }
  function nameOf(p) {
    return NAMES[p] || p.replace(/_/g, " ");
  }
  // The name inside a sentence: lower case, but for the symbol pH the
  // page's language decides.
  function nameInText(p) {
    return p === "ph" ? say("readings.ph_in_text") : nameOf(p).toLowerCase();
  }
  // The words of a sentence about `parameter` at the selected site.
  function about(parameter, more) {
    var vars = { parameter: nameOf(parameter), parameter_in_text: nameInText(parameter), site: current.name };
    Object.keys(more || {}).forEach(function (k) {
      vars[k] = more[k];
    });
    return vars;
  }
  function fmt(v) {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: 3 }).format(v);
  }

  function readings(site, parameter) {
    var key = site + "\n" + parameter;
    if (cache[key]) return Promise.resolve(cache[key]);
    var url =
      src + "?site=" + encodeURIComponent(site) + "&parameter=" + encodeURIComponent(parameter) + "&limit=" + LIMIT;
    var ctrl = "AbortController" in window ? new AbortController() : null;
    var guard = setTimeout(function () {
      if (ctrl) ctrl.abort();
    }, TIMEOUT_MS);
    return fetch(url, { headers: { Accept: "application/json" }, signal: ctrl ? ctrl.signal : undefined })
      .then(function (r) {
        clearTimeout(guard);
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      })
      .then(function (body) {
        var rows = (body && Array.isArray(body.data) ? body.data : [])
          .filter(function (o) {
            return typeof o.value === "number" && !isNaN(Date.parse(o.observed_at));
          })
          .reverse(); // oldest first
        cache[key] = rows;
        return rows;
      });
  }

  // Round tick steps (1, 2 or 5 times a power of ten), from the step at or
  // below the data's minimum to the step at or above its maximum, so the
  // axis always covers every reading.
  function ticks(lo, hi, count) {
    if (hi === lo) {
      var pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
      lo -= pad;
      hi += pad;
    }
    var raw = (hi - lo) / Math.max(1, count);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) {
      return m * p;
    }).filter(function (s) {
      return s >= raw;
    })[0];
    var first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
    var out = [];
    for (var k = first; k <= last; k++) out.push(+(k * step).toFixed(10));
    return out;
  }

  // Rough width of a label at the charts' 12 px type, to thin the ticks
  // before anything is laid out; generous, so labels never touch.
  function textWidth(s) {
    return String(s).length * 7;
  }

  // Dates along the x axis: the first and last reading's days at the ends,
  // and between them the first days of months (every 1, 2, 3, 6 or 12
  // months) where there is room for their labels.
  function dateTicks(t0, t1, x, left, right) {
    var ends = [
      { t: t0, text: day.format(new Date(t0)), anchor: "start" },
      { t: t1, text: day.format(new Date(t1)), anchor: "end" },
    ];
    if (textWidth(ends[0].text) + textWidth(ends[1].text) + 12 > right - left) {
      ends.forEach(function (e) {
        e.text = month.format(new Date(e.t));
      });
    }
    if (t1 === t0) return [ends[0]];
    var from = x(t0) + textWidth(ends[0].text) + 12, to = x(t1) - textWidth(ends[1].text) - 12;
    var mids = [];
    [1, 2, 3, 6, 12, 24].some(function (every) {
      var d = new Date(t0), list = [];
      var m = new Date(d.getFullYear(), d.getMonth() + 1, 1);
      while (m.getMonth() % every !== 0 && every > 1) m = new Date(m.getFullYear(), m.getMonth() + 1, 1);
      for (; m.getTime() < t1; m = new Date(m.getFullYear(), m.getMonth() + every, 1)) {
        var text = month.format(m), w = textWidth(text);
        if (x(m.getTime()) - w / 2 >= from && x(m.getTime()) + w / 2 <= to) list.push({ t: m.getTime(), text: text, anchor: "middle", w: w });
      }
      var fits = list.every(function (a, i) {
        return i === 0 || x(a.t) - x(list[i - 1].t) >= (a.w + list[i - 1].w) / 2 + 12;
      });
      if (fits) mids = list;
      return fits;
    });
    return [ends[0]].concat(mids, [ends[1]]);
  }

  function chart(rows, parameter, width) {
    var unit = rows[0].unit || "";
    // As wide as its box, drawn at one pixel per unit: the labels keep their
    // size on a phone and the ticks are thinned to fit the width.
    var W = Math.round(Math.min(640, Math.max(240, width))), H = 260, R = 12, T = 12, B = 44;
    // Room inside the plot's edges, so the marks at the extremes (and the
    // latest reading's ring) stay inside it.
    var PAD = 9;
    var times = rows.map(function (o) {
      return Date.parse(o.observed_at);
    });
    var values = rows.map(function (o) {
      return o.value;
    });
    var t0 = Math.min.apply(null, times), t1 = Math.max.apply(null, times);
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var yt = ticks(lo, hi, Math.max(2, Math.floor((H - T - B) / 45)));
    var y0 = yt[0], y1 = yt[yt.length - 1];
    var L = 26 + Math.max.apply(null, yt.map(function (v) {
      return textWidth(fmt(v));
    }));
    function x(t) {
      if (t1 === t0) return (L + W - R) / 2;
      return L + PAD + ((t - t0) / (t1 - t0)) * (W - L - R - 2 * PAD);
    }
    function y(v) {
      return H - B - PAD - ((v - y0) / (y1 - y0)) * (H - T - B - 2 * PAD);
    }
    var last = rows[rows.length - 1];
    var root = svg("svg", {
      viewBox: "0 0 " + W + " " + H,
      class: "chart",
      role: "group",
      "aria-roledescription": say("readings.chart"),
      "aria-label": say(unit ? "readings.chart_label_unit" : "readings.chart_label", about(parameter, { unit: unit })),
      "aria-describedby": "site-chart-summary site-chart-readout",
      "aria-details": "site-chart-table",
      tabindex: "0",
    });
    // What is drawn is for the eye; the summary, the readout and the table
    // say the same in words.
    var g = svg("g", { "aria-hidden": "true" }, root);
    svg("rect", { class: "chart-plot", x: L, y: T, width: W - L - R, height: H - T - B }, g);
    var grid = svg("g", { class: "chart-grid" }, g);
    yt.forEach(function (v) {
      svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v) }, grid);
      var t = svg("text", { x: L - 6, y: y(v) + 4, class: "chart-tick", "text-anchor": "end", "data-value": v }, grid);
      t.textContent = fmt(v);
    });
    dateTicks(t0, t1, x, L, W - R).forEach(function (d) {
      svg("line", { x1: x(d.t), x2: x(d.t), y1: H - B, y2: H - B + 4, class: "chart-axis" }, g);
      var tx = svg("text", {
        x: x(d.t),
        y: H - B + 18,
        class: "chart-tick",
        "text-anchor": d.anchor,
        "data-time": new Date(d.t).toISOString(),
      }, g);
      tx.textContent = d.text;
    });
    svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "chart-axis" }, g);
    svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "chart-axis" }, g);
    var axis = svg("text", {
      class: "chart-label",
      transform: "translate(14 " + (T + (H - T - B) / 2) + ") rotate(-90)",
      "text-anchor": "middle",
    }, g);
    axis.textContent = unit && unit !== nameOf(parameter)
      ? say("readings.axis_unit", about(parameter, { unit: unit }))
      : nameOf(parameter);
    var dateLabel = svg("text", { class: "chart-label", x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle" }, g);
    dateLabel.textContent = say("readings.date_axis");
    svg("polyline", {
      class: "chart-line",
      points: rows
        .map(function (o, k) {
          return x(times[k]).toFixed(1) + "," + y(o.value).toFixed(1);
        })
        .join(" "),
    }, g);
    rows.forEach(function (o, k) {
      var cx = x(times[k]), cy = y(o.value);
      if (o.quality_flag === "valid") {
        svg("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 3.5, class: "chart-point" }, g);
      } else {
        // A flagged reading: a hollow diamond, so it differs in shape and not only in colour.
        var d = 6;
        svg("polygon", {
          class: "chart-flagged",
          points: [cx, cy - d, cx + d, cy, cx, cy + d, cx - d, cy].map(function (v) {
            return v.toFixed(1);
          }).join(" "),
        }, g);
      }
    });
    // The latest reading: a ring, and its value and day written beside it,
    // to its left (it is the rightmost point), above or below the point.
    var lx = x(t1), ly = y(last.value);
    svg("circle", { class: "chart-latest", cx: lx.toFixed(1), cy: ly.toFixed(1), r: 7 }, g);
    var lines = [say("readings.latest_value", { value: fmt(last.value) + (unit ? " " + unit : "") }), day.format(new Date(t1))];
    var wide = Math.max(textWidth(lines[0]), textWidth(lines[1]));
    // Left of the point when there is room (always, but for a lone reading
    // in the middle of a narrow chart), else right of it, else over it.
    var x0 = lx - 12 - wide, over = false;
    if (x0 < L + 4) x0 = lx + 12;
    if (x0 + wide > W - R - 4) {
      x0 = Math.max(L + 4, Math.min(lx - wide / 2, W - R - 4 - wide));
      over = true;
    }
    var ax = x0.toFixed(1);
    // Above or below the point: where fewer readings would be covered.
    var place = [ly - (over ? 24 : 20), ly + (over ? 22 : 16)].filter(function (b) {
      return b - 12 >= T + 2 && b + 17 <= H - B - 2;
    });
    var covered = function (b) {
      return rows.filter(function (o, k) {
        var px = x(times[k]), py = y(o.value);
        return px >= x0 - 6 && px <= x0 + wide + 6 && py >= b - 18 && py <= b + 20;
      }).length;
    };
    var ty = place.length ? place.reduce(function (a, b) {
      return covered(b) < covered(a) ? b : a;
    }) : ly + 16;
    var lt = svg("text", { class: "chart-latest-label", x: ax, y: ty.toFixed(1), "text-anchor": "start" }, g);
    svg("tspan", { x: ax }, lt).textContent = lines[0];
    svg("tspan", { x: ax, dy: 14 }, lt).textContent = lines[1];
    // The reading the arrow keys have reached.
    var focus = svg("circle", { class: "chart-focus", r: 7, cx: lx, cy: ly }, g);
    focus.style.display = "none";
    root.chartPoint = function (k) {
      focus.setAttribute("cx", x(times[k]).toFixed(1));
      focus.setAttribute("cy", y(rows[k].value).toFixed(1));
      focus.style.display = "";
    };
    return root;
  }

  function describe(rows, parameter) {
    var unit = rows[0].unit ? " " + rows[0].unit : "";
    var low = rows[0], high = rows[0];
    rows.forEach(function (o) {
      if (o.value < low.value) low = o;
      if (o.value > high.value) high = o;
    });
    var at = function (o) {
      return say("readings.value_on", { value: fmt(o.value) + unit, date: day.format(new Date(o.observed_at)) });
    };
    var flagged = rows.filter(function (o) {
      return o.quality_flag !== "valid";
    }).length;
    return say(flagged ? "readings.summary_flagged" : "readings.summary", about(parameter, {
      count: rows.length,
      first: day.format(new Date(rows[0].observed_at)),
      last: day.format(new Date(rows[rows.length - 1].observed_at)),
      lowest: at(low),
      highest: at(high),
      latest: at(rows[rows.length - 1]),
      flagged: flagged,
    }));
  }

  function readout(o) {
    return say("readings.readout", {
      date: day.format(new Date(o.observed_at)),
      value: fmt(o.value) + (o.unit ? " " + o.unit : ""),
      flag: wordOf("flag_", o.quality_flag),
    });
  }

  // Arrow keys (and Home, End) move along the readings, oldest to newest;
  // the readout, a polite live region, says which.
  function keys(root, rows, out) {
    var at = -1;
    function go(k) {
      at = Math.max(0, Math.min(rows.length - 1, k));
      root.chartPoint(at);
      out.textContent = readout(rows[at]);
    }
    root.addEventListener("keydown", function (e) {
      var next = {
        ArrowLeft: at - 1, ArrowDown: at - 1, ArrowRight: at + 1, ArrowUp: at + 1, Home: 0, End: rows.length - 1,
      }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      go(at < 0 && e.key.indexOf("Arrow") === 0 ? rows.length - 1 : next);
    });
  }

  function table(rows, parameter) {
    var wrap = el("div", "table-wrap chart-table");
    wrap.setAttribute("tabindex", "0");
    wrap.id = "site-chart-table";
    var t = el("table");
    t.setAttribute("data-parameter", parameter);
    var cap = el("caption", "", say("readings.table_caption", about(parameter)));
    t.appendChild(cap);
    var head = el("thead");
    var hr = el("tr");
    [say("readings.date"), say("readings.value"), say("readings.unit"), say("readings.quality_flag")].forEach(function (h) {
      var th = el("th", "", h);
      th.setAttribute("scope", "col");
      hr.appendChild(th);
    });
    head.appendChild(hr);
    t.appendChild(head);
    var body = el("tbody");
    rows.forEach(function (o) {
      var tr = el("tr");
      tr.setAttribute("data-id", String(o.id));
      var td = el("td");
      var time = el("time", "", day.format(new Date(o.observed_at)));
      time.dateTime = o.observed_at;
      td.appendChild(time);
      tr.appendChild(td);
      var v = el("td", "num", fmt(o.value));
      v.setAttribute("data-value", String(o.value));
      tr.appendChild(v);
      tr.appendChild(el("td", "", o.unit || ""));
      tr.appendChild(el("td", o.quality_flag === "valid" ? "" : "flag", wordOf("flag_", o.quality_flag)));
      body.appendChild(tr);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    return wrap;
  }

  function showParameter(parameter, area, buttons) {
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-parameter") === parameter ? "true" : "false");
    });
    var site = current;
    var mine = ++serial;
    area.setAttribute("aria-busy", "true");
    area.textContent = "";
    area.appendChild(el("p", "chart-status", say("readings.loading")));
    readings(site.id, parameter).then(
      function (rows) {
        if (mine !== serial) return;
        area.textContent = "";
        if (!rows.length) {
          area.appendChild(el("p", "", say("readings.none_of_parameter", about(parameter))));
        } else {
          var fig = el("figure", "chart-figure");
          var summary = el("p", "chart-summary", describe(rows, parameter));
          summary.id = "site-chart-summary";
          fig.appendChild(summary);
          var root = chart(rows, parameter, area.clientWidth);
          fig.appendChild(root);
          var out = el("p", "chart-readout", say("readings.readout_hint"));
          out.id = "site-chart-readout";
          out.setAttribute("aria-live", "polite");
          fig.appendChild(out);
          keys(root, rows, out);
          var legend = el("figcaption", "chart-legend");
          legend.appendChild(el("span", "key-valid", say("readings.key_reading")));
          legend.appendChild(el("span", "key-flagged", say("readings.key_flagged")));
          legend.appendChild(el("span", "key-latest", say("readings.key_latest")));
          legend.appendChild(
            el("span", "", say("readings.source_note", {
              count: rows.length,
              source: src + "?site=" + site.id + "&parameter=" + parameter,
            }))
          );
          fig.appendChild(legend);
          area.appendChild(fig);
          area.appendChild(table(rows, parameter));
        }
        area.setAttribute("aria-busy", "false");
        area.setAttribute("data-parameter", parameter);
        box.setAttribute("data-loaded", site.id + "/" + parameter);
      },
      function () {
        if (mine !== serial) return;
        area.textContent = "";
        var p = el("p", "notice", say("readings.load_failed", { url: src + "?site=" + site.id }));
        p.setAttribute("role", "status");
        area.appendChild(p);
        area.setAttribute("aria-busy", "false");
      }
    );
  }

  // The site's observations to take away: CSV from the observations route,
  // GeoJSON from the features route's observations filtered by the site.
  // Both give at most MAX_PAGE rows a request; a busier site's links say so,
  // and each answer links its next page (CSV: the Link header; GeoJSON: its
  // "next" link).
  var MAX_PAGE = 1000;
  var apiPrefix = src.replace(/\/api\/observations-data\.php$/, "");
  var features = apiPrefix + "/api/features/collections/observations/items";
  function downloads(site) {
    var id = encodeURIComponent(site.id);
    var p = el("p", "chart-downloads");
    var whole = site.count <= MAX_PAGE;
    // The two files' links, where the sentence puts {csv} and {geojson}.
    var links = { count: num.format(site.count), page: num.format(MAX_PAGE) };
    [
      ["csv", "CSV", src + "?site=" + id + "&format=csv&limit=" + MAX_PAGE, "text/csv"],
      ["geojson", "GeoJSON", features + "?site_id=" + id + "&limit=" + MAX_PAGE + "&f=json", "application/geo+json"],
    ].forEach(function (d) {
      var a = el("a", "", d[1]);
      a.href = d[2];
      a.type = d[3];
      a.setAttribute("data-download", d[0]);
      links[d[0]] = a;
    });
    fill(p, whole ? "readings.download_all" : "readings.download_page", links);
    return p;
  }

  function show(site) {
    current = site;
    box.hidden = false;
    box.textContent = "";
    var h = el("h3", "", site.name);
    h.id = "site-detail-title";
    h.setAttribute("tabindex", "-1");
    box.setAttribute("aria-labelledby", h.id);
    box.appendChild(h);
    var dl = el("dl", "site-facts");
    [
      [say("readings.country"), site.country],
      [say("readings.water_body"), wordOf("water_", site.water)],
      [say("readings.observations"), num.format(site.count)],
      [say("readings.latest_observation"), site.latest ? day.format(new Date(site.latest)) : "—"],
    ].forEach(function (f) {
      var d = el("div");
      d.appendChild(el("dt", "", f[0]));
      d.appendChild(el("dd", "", f[1]));
      dl.appendChild(d);
    });
    box.appendChild(dl);
    box.appendChild(downloads(site));
    // The common parameters first, the advanced kit's last.
    var ORDER = ["nitrate", "phosphate", "ph", "temperature", "turbidity", "nitrite", "ammonium", "dissolved_oxygen"];
    var rank = function (p) {
      var i = ORDER.indexOf(p);
      return i < 0 ? ORDER.length : i;
    };
    var params = (site.parameters || []).slice().sort(function (a, b) {
      return rank(a) - rank(b) || (a < b ? -1 : 1);
    });
    if (!params.length) {
      box.appendChild(el("p", "", say("readings.none")));
      return;
    }
    var group = el("div", "chart-params");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", say("readings.parameter_to_chart"));
    var area = el("div", "chart-area");
    var buttons = params.map(function (p) {
      var b = el("button", "btn", nameOf(p));
      b.type = "button";
      b.setAttribute("data-parameter", p);
      b.addEventListener("click", function () {
        showParameter(p, area, buttons);
      });
      group.appendChild(b);
      return b;
    });
    box.appendChild(group);
    box.appendChild(area);
    showParameter(params[0], area, buttons);
    h.focus({ preventScroll: true });
    box.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("siteselect", function (e) {
    if (e.detail && e.detail.id) show(e.detail);
  });
})();
