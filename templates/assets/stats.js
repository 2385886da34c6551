// Live statistics into #stats (data-src: the statistics route; data-figures:
// which figures, all by default; data-chart: draw the monthly series as a
// bar chart from zero with its table, the latest month labelled, the arrow
// keys stepping through the months, when the route gives one). Numbers are
// formatted for the page's language; the figures refresh every 60 s, never
// sooner than the response's Cache-Control max-age allows, without a reload.
// Figures older than their stated freshness, or marked `stale` by the
// server, are labelled as possibly out of date. On a copy of the site
// without the live service (a static host: 404 or no answer) the container
// says so plainly. Without #stats, this does nothing.
(function () {
  "use strict";
  var box = document.getElementById("stats");
  if (!box) return;
  var src = box.getAttribute("data-src") || "/api/platform-stats.php";
  // The interface words in the page's language (words.{code}.js).
  var say = window.uiWord;
  var fill = window.uiFill;
  var lang = document.documentElement.lang || "en";
  var num = new Intl.NumberFormat(lang);
  var when = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  var REFRESH_S = 60;
  var TIMEOUT_MS = 15000;

  var FIGURES = [
    ["observations", say("stats.observations")],
    ["observations_last_30_days", say("stats.observations_last_30_days")],
    ["sites", say("stats.sites")],
    ["countries", say("stats.countries")],
    ["volunteers", say("stats.volunteers")],
    ["classifications", say("stats.classifications")],
    ["classification_projects", say("stats.classification_projects")],
    ["projects", say("stats.projects")],
  ];

  // data-figures: the figures to show (names, comma-separated), all by default.
  var only = (box.getAttribute("data-figures") || "").split(",").filter(Boolean);
  if (only.length) {
    FIGURES = FIGURES.filter(function (f) {
      return only.indexOf(f[0]) >= 0;
    });
  }

  // The numbers change every minute: announcing them all each time would
  // drown a screen reader, so only the status line below is live.
  box.removeAttribute("aria-live");
  box.setAttribute("aria-busy", "true");

  var last = null; // last good figures
  var timer = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function timeEl(iso) {
    var t = el("time");
    t.dateTime = iso;
    var d = new Date(iso);
    t.textContent = isNaN(d) ? iso : when.format(d);
    return t;
  }

  function maxAge(res, data) {
    var m = /(?:^|,)\s*max-age=(\d+)/i.exec(res.headers.get("Cache-Control") || "");
    if (m) return Number(m[1]);
    if (data && typeof data.cache_max_age_s === "number") return data.cache_max_age_s;
    return REFRESH_S;
  }

  function render(data, fresh, note) {
    box.textContent = "";
    box.classList.toggle("is-stale", !fresh);
    box.classList.remove("is-unavailable");
    var dl = el("dl", "stat-grid");
    FIGURES.forEach(function (f) {
      if (typeof data[f[0]] !== "number") return;
      var div = el("div");
      div.appendChild(el("dt", "", f[1]));
      var dd = el("dd", "", num.format(data[f[0]]));
      dd.setAttribute("data-stat", f[0]);
      dd.setAttribute("data-value", String(data[f[0]]));
      div.appendChild(dd);
      dl.appendChild(div);
    });
    box.appendChild(dl);
    if (box.hasAttribute("data-chart") && Array.isArray(data.monthly) && data.monthly.length > 1) {
      box.appendChild(monthlyChart(data.monthly));
    }

    var meta = el("p", "stats-meta");
    if (data.latest_observation_at) {
      fill(meta, "stats.latest_observation", { time: timeEl(data.latest_observation_at) });
    }
    var updated = timeEl(data.generated_at);
    updated.className = "stats-updated";
    var a = el("a", "", src);
    a.href = src;
    fill(meta, "stats.updated_at", { time: updated, source: a });
    box.appendChild(meta);

    var state = el("p", fresh ? "stats-state vh" : "stats-state notice");
    state.setAttribute("role", "status");
    state.textContent = fresh
      ? say("stats.live_updated")
      : note || say("stats.may_be_out_of_date");
    box.appendChild(state);
    box.setAttribute("aria-busy", "false");
  }

  // ---- the monthly chart (data-chart): observations and classifications
  // per month as inline SVG bars, with the same figures in a table ----------
  var SVG = "http://www.w3.org/2000/svg";
  // Months in the page's language, in the reader's own variant of it
  // (en-GB, en-US) when the browser names one.
  var monthName = new Intl.DateTimeFormat(window.uiLocale(), { month: "short", year: "numeric", timeZone: "UTC" });
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      e.setAttribute(k, String(attrs[k]));
    });
    if (parent) parent.appendChild(e);
    return e;
  }
  function monthLabel(m) {
    var d = new Date(m + "-01T00:00:00Z");
    return isNaN(d) ? m : monthName.format(d);
  }
  // Round tick steps (1, 2 or 5 times a power of ten) from zero, the bars'
  // baseline, to the first step at or above the highest bar.
  function ticks(hi, count) {
    if (!(hi > 0)) return [0, 1];
    var raw = hi / Math.max(1, count);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (k) {
      return k * p;
    }).filter(function (k) {
      return k >= raw;
    })[0];
    var out = [];
    for (var k = 0; k <= Math.ceil(hi / step - 1e-9); k++) out.push(+(k * step).toFixed(10));
    return out;
  }
  // Rough width of a label at the charts' 12 px type: generous, so labels never touch.
  function textWidth(s) {
    return String(s).length * 7;
  }
  // [field, label, bar class, the word of its lowest-to-highest clause]
  var SERIES = [
    ["observations", say("stats.observations"), "bar-obs", "stats.range_observations"],
    ["classifications", say("stats.classifications"), "bar-cls", "stats.range_classifications"],
  ];
  // "12 observations, 3 classifications"
  function counts(m) {
    return say("stats.counts", {
      observations: num.format(m.observations || 0),
      classifications: num.format(m.classifications || 0),
    });
  }
  function monthText(m) {
    return say("stats.month_text", { month: monthLabel(m.month), counts: counts(m) });
  }
  function summarise(months) {
    var vars = {
      months: months.length,
      first: monthLabel(months[0].month),
      last: monthLabel(months[months.length - 1].month),
      latest: monthText(months[months.length - 1]),
    };
    SERIES.forEach(function (s) {
      var lo = months[0], hi = months[0];
      months.forEach(function (m) {
        if ((m[s[0]] || 0) < (lo[s[0]] || 0)) lo = m;
        if ((m[s[0]] || 0) > (hi[s[0]] || 0)) hi = m;
      });
      vars[s[0]] = say(s[3], {
        low: num.format(lo[s[0]] || 0),
        low_month: monthLabel(lo.month),
        high: num.format(hi[s[0]] || 0),
        high_month: monthLabel(hi.month),
      });
    });
    return say("stats.summary", vars);
  }
  function monthlyChart(months) {
    var fig = el("figure", "chart-figure monthly");
    // As wide as the box, one pixel per unit up to 720, so the labels keep
    // their size on a phone and the month labels are thinned to fit.
    var W = Math.round(Math.min(720, Math.max(240, box.clientWidth))), H = 240, R = 12, T = 36, B = 40;
    var yt = ticks(
      Math.max.apply(null, months.map(function (m) {
        return Math.max(m.observations || 0, m.classifications || 0);
      })),
      Math.max(2, Math.floor((H - T - B) / 45))
    );
    var max = yt[yt.length - 1];
    var L = 26 + Math.max.apply(null, yt.map(function (v) {
      return textWidth(num.format(v));
    }));
    // For screen readers only: the page reserves the height of the figures
    // and the chart, and the table beneath says the same to the eye.
    var summary = el("p", "chart-summary vh", summarise(months));
    summary.id = "monthly-chart-summary";
    fig.appendChild(summary);
    var root = svg("svg", {
      viewBox: "0 0 " + W + " " + H,
      class: "chart",
      role: "group",
      "aria-roledescription": say("stats.chart"),
      "aria-label": say("stats.per_month_title"),
      "aria-describedby": "monthly-chart-summary monthly-chart-readout",
      "aria-details": "monthly-chart-table",
      tabindex: "0",
    });
    // What is drawn is for the eye; the summary, the readout and the table
    // say the same in words.
    var g = svg("g", { "aria-hidden": "true" }, root);
    var plotW = W - L - R, plotH = H - T - B;
    svg("rect", { class: "chart-plot", x: L, y: T, width: plotW, height: plotH }, g);
    yt.forEach(function (v) {
      var y = T + plotH * (1 - v / max);
      svg("line", { x1: L, x2: W - R, y1: y, y2: y, class: "chart-gridline" }, g);
      var t = svg("text", { x: L - 6, y: y + 4, class: "chart-tick", "text-anchor": "end", "data-value": v }, g);
      t.textContent = num.format(v);
    });
    var slot = plotW / months.length;
    var bar = Math.max(0.5, (slot - 2) / 2);
    function top(m) {
      return T + plotH - (Math.max(m.observations || 0, m.classifications || 0) / max) * plotH;
    }
    months.forEach(function (m, i) {
      SERIES.forEach(function (s, k) {
        var v = m[s[0]] || 0;
        var h = (v / max) * plotH;
        if (h > 0) svg("rect", { x: (L + i * slot + 1 + k * bar).toFixed(1), y: (T + plotH - h).toFixed(1), width: bar.toFixed(1), height: h.toFixed(1), class: s[2] }, g);
      });
    });
    // Month labels: the first and the last, and between them as many
    // evenly spaced months as fit without touching.
    var lw = textWidth(monthLabel(months[0].month));
    var room = Math.max(1, Math.floor(plotW / (lw + 16)));
    var every = Math.max(1, Math.ceil((months.length - 1) / Math.max(1, room - 1)));
    var at = [];
    for (var i = 0; i < months.length - 1; i += every) at.push(i);
    if (at.length > 1 && (months.length - 1 - at[at.length - 1]) * slot < lw + 16) at.pop();
    at.push(months.length - 1);
    at.forEach(function (i, k) {
      var anchor = k === 0 ? "start" : k === at.length - 1 ? "end" : "middle";
      var cx = anchor === "start" ? L + i * slot : anchor === "end" ? L + (i + 1) * slot : L + i * slot + slot / 2;
      svg("line", { x1: (L + i * slot + slot / 2).toFixed(1), x2: (L + i * slot + slot / 2).toFixed(1), y1: T + plotH, y2: T + plotH + 4, class: "chart-axis" }, g);
      var t = svg("text", {
        x: cx.toFixed(1),
        y: H - B + 16,
        class: "chart-tick",
        "text-anchor": anchor,
        "data-time": months[i].month + "-01T00:00:00Z",
      }, g);
      t.textContent = monthLabel(months[i].month);
    });
    svg("line", { x1: L, x2: W - R, y1: T + plotH, y2: T + plotH, class: "chart-axis" }, g);
    var yl = svg("text", { class: "chart-label", transform: "translate(12 " + (T + plotH / 2) + ") rotate(-90)", "text-anchor": "middle" }, g);
    yl.textContent = say("stats.axis_per_month");
    var xl = svg("text", { class: "chart-label", x: L + plotW / 2, y: H - 4, "text-anchor": "middle" }, g);
    xl.textContent = say("stats.month");
    // The latest month: a frame around its bars, and its figures above the
    // plot (named there, so the legend keeps to one line on a phone).
    var n = months.length - 1, latest = months[n];
    var ly = Math.min(top(latest), T + plotH - 2);
    svg("rect", { class: "chart-latest", x: (L + n * slot).toFixed(1), y: ly.toFixed(1), width: slot.toFixed(1), height: (T + plotH - ly).toFixed(1) }, g);
    var lt = svg("text", { class: "chart-latest-label", x: W - R, y: 12, "text-anchor": "end" }, g);
    svg("tspan", { x: W - R }, lt).textContent = say("stats.latest_month", { month: monthLabel(latest.month) });
    svg("tspan", { x: W - R, dy: 14 }, lt).textContent = counts(latest);
    // The month the arrow keys have reached.
    var focus = svg("rect", { class: "chart-focus", x: L, y: T, width: slot.toFixed(1), height: plotH }, g);
    focus.style.display = "none";
    fig.appendChild(root);
    var out = el("p", "chart-readout", say("stats.readout_hint"));
    out.id = "monthly-chart-readout";
    out.setAttribute("aria-live", "polite");
    var cur = -1;
    root.addEventListener("keydown", function (e) {
      var next = { ArrowLeft: cur - 1, ArrowDown: cur - 1, ArrowRight: cur + 1, ArrowUp: cur + 1, Home: 0, End: n }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      cur = Math.max(0, Math.min(n, cur < 0 && e.key.indexOf("Arrow") === 0 ? n : next));
      focus.setAttribute("x", (L + cur * slot).toFixed(1));
      focus.style.display = "";
      out.textContent = monthText(months[cur]);
    });
    var legend = el("figcaption", "chart-legend");
    SERIES.forEach(function (s) {
      legend.appendChild(el("span", "key-" + s[2], s[1]));
    });
    legend.appendChild(out);
    fig.appendChild(legend);
    var wrap = el("div", "table-wrap chart-table");
    wrap.setAttribute("tabindex", "0");
    wrap.id = "monthly-chart-table";
    var t = el("table", "monthly-table");
    t.appendChild(el("caption", "", say("stats.per_month_title")));
    var hr = el("tr");
    [say("stats.month"), SERIES[0][1], SERIES[1][1]].forEach(function (h) {
      var th = el("th", "", h);
      th.setAttribute("scope", "col");
      hr.appendChild(th);
    });
    var head = el("thead");
    head.appendChild(hr);
    t.appendChild(head);
    var body = el("tbody");
    months.forEach(function (m) {
      var tr = el("tr");
      tr.setAttribute("data-month", m.month);
      var th = el("th", "", monthLabel(m.month));
      th.setAttribute("scope", "row");
      tr.appendChild(th);
      SERIES.forEach(function (s) {
        var td = el("td", "num", num.format(m[s[0]] || 0));
        td.setAttribute("data-value", String(m[s[0]] || 0));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    fig.appendChild(wrap);
    return fig;
  }

  function unavailable(message) {
    box.textContent = "";
    box.classList.add("is-unavailable");
    var p = el("p", "notice");
    p.setAttribute("role", "status");
    p.setAttribute("data-stats-unavailable", "");
    p.textContent =
      message || say("stats.not_here", { source: src });
    box.appendChild(p);
    box.setAttribute("aria-busy", "false");
  }

  function isOld(data, ageS) {
    var t = Date.parse(data.generated_at);
    if (isNaN(t)) return false;
    // Allow one refresh interval and some clock skew on top of the stated freshness.
    return Date.now() - t > (ageS + REFRESH_S + 60) * 1000;
  }

  function schedule(seconds) {
    clearTimeout(timer);
    timer = setTimeout(refresh, Math.max(seconds, REFRESH_S) * 1000);
  }

  function refresh() {
    var ctrl = "AbortController" in window ? new AbortController() : null;
    var guard = setTimeout(function () {
      if (ctrl) ctrl.abort();
    }, TIMEOUT_MS);
    fetch(src, { headers: { Accept: "application/json" }, signal: ctrl ? ctrl.signal : undefined })
      .then(function (res) {
        var type = res.headers.get("Content-Type") || "";
        if (!res.ok || type.indexOf("json") < 0) {
          var err = new Error("HTTP " + res.status);
          err.status = res.status;
          throw err;
        }
        return res.json().then(function (data) {
          if (!data || typeof data.generated_at !== "string") throw new Error("unexpected response");
          return { data: data, age: maxAge(res, data) };
        });
      })
      .then(
        function (r) {
          clearTimeout(guard);
          last = r;
          var stale = r.data.stale === true || isOld(r.data, r.age);
          render(r.data, !stale, r.data.stale === true
            ? say("stats.no_database")
            : say("stats.older_than_expected"));
          schedule(r.age);
        },
        function (err) {
          clearTimeout(guard);
          if (last) {
            render(last.data, false, say("stats.refresh_failed"));
            schedule(REFRESH_S);
          } else if (err && err.status && err.status >= 500) {
            // The live service exists but is failing: try again later.
            unavailable(say("stats.temporarily_unavailable"));
            schedule(REFRESH_S);
          } else {
            unavailable();
          }
        }
      );
  }

  document.addEventListener("visibilitychange", function () {
    // Catch up after a hidden tab's timers were throttled.
    if (document.visibilityState === "visible" && last && isOld(last.data, 0)) refresh();
  });
  refresh();
})();
