// A site's recent readings in #site-detail (data-src: the observations
// route), shown when a site is selected on the globe or in the site table
// (globe.js sends a "siteselect" event with the site). For each parameter
// measured there, the last readings are drawn as an inline SVG chart (dates
// on the x axis in the reader's locale, the unit on the y axis, readings
// with a quality flag other than "valid" marked) with the same readings in
// a table beneath it, for screen readers and for reading the exact values.
// Without #site-detail, this does nothing.
(function () {
  "use strict";
  var box = document.getElementById("site-detail");
  if (!box) return;
  var src = box.getAttribute("data-src") || "/api/observations-data.php";
  var lang = document.documentElement.lang || undefined;
  var num = new Intl.NumberFormat(lang);
  // Dates as the reader writes them: the browser's own locale.
  var day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
  var month = new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric" });
  var LIMIT = 40;
  var TIMEOUT_MS = 15000;
  var SVG = "http://www.w3.org/2000/svg";
  var NAMES = {
    nitrate: "Nitrate",
    nitrite: "Nitrite",
    phosphate: "Phosphate",
    turbidity: "Turbidity",
    temperature: "Temperature",
    ph: "pH",
    ammonium: "Ammonium",
    dissolved_oxygen: "Dissolved oxygen",
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
  function nameOf(p) {
    return NAMES[p] || p.replace(/_/g, " ");
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

  // Round tick steps: 1, 2 or 5 times a power of ten.
  function ticks(lo, hi, count) {
    if (hi === lo) {
      var pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
      lo -= pad;
      hi += pad;
    }
    var raw = (hi - lo) / count;
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) {
      return m * p;
    }).filter(function (s) {
      return s >= raw;
    })[0];
    var out = [];
    for (var v = Math.floor(lo / step) * step; v <= hi + step * 0.5; v += step) out.push(+v.toFixed(10));
    return out;
  }

  function chart(rows, parameter) {
    var unit = rows[0].unit || "";
    // As wide as the box, so the labels keep their size on a phone.
    var W = Math.round(Math.min(640, Math.max(300, box.clientWidth - 32))), H = 260, L = 64, R = 16, T = 14, B = 44;
    var times = rows.map(function (o) {
      return Date.parse(o.observed_at);
    });
    var values = rows.map(function (o) {
      return o.value;
    });
    var t0 = Math.min.apply(null, times), t1 = Math.max.apply(null, times);
    if (t1 === t0) {
      t0 -= 86400000;
      t1 += 86400000;
    }
    var yt = ticks(Math.min.apply(null, values), Math.max.apply(null, values), 4);
    var y0 = yt[0], y1 = yt[yt.length - 1];
    function x(t) {
      return L + ((t - t0) / (t1 - t0)) * (W - L - R);
    }
    function y(v) {
      return H - B - ((v - y0) / (y1 - y0)) * (H - T - B);
    }
    var flagged = rows.filter(function (o) {
      return o.quality_flag !== "valid";
    }).length;
    var label =
      nameOf(parameter) + " at " + current.name + ": " + rows.length + " readings in " + unit + " from " +
      day.format(new Date(t0)) + " to " + day.format(new Date(t1)) +
      (flagged ? ", " + flagged + " flagged" : "") + ". The table below lists them.";
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, class: "chart", role: "img", "aria-label": label });
    svg("title", {}, root).textContent = label;
    var grid = svg("g", { class: "chart-grid" }, root);
    yt.forEach(function (v) {
      svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v) }, grid);
      var t = svg("text", { x: L - 6, y: y(v) + 4, class: "chart-tick", "text-anchor": "end" }, grid);
      t.textContent = fmt(v);
    });
    var xt = W < 480 ? 2 : 4;
    for (var i = 0; i <= xt; i++) {
      var t = t0 + ((t1 - t0) * i) / xt;
      var tx = svg("text", {
        x: x(t),
        y: H - B + 18,
        class: "chart-tick",
        "text-anchor": i === 0 ? "start" : i === xt ? "end" : "middle",
      }, grid);
      tx.textContent = month.format(new Date(t));
    }
    svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "chart-axis" }, root);
    svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "chart-axis" }, root);
    var axis = svg("text", {
      class: "chart-label",
      transform: "translate(14 " + (T + (H - T - B) / 2) + ") rotate(-90)",
      "text-anchor": "middle",
    }, root);
    axis.textContent = nameOf(parameter) + (unit ? " (" + unit + ")" : "");
    var dateLabel = svg("text", { class: "chart-label", x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle" }, root);
    dateLabel.textContent = "Date of reading";
    svg("polyline", {
      class: "chart-line",
      points: rows
        .map(function (o, k) {
          return x(times[k]).toFixed(1) + "," + y(o.value).toFixed(1);
        })
        .join(" "),
    }, root);
    rows.forEach(function (o, k) {
      var cx = x(times[k]), cy = y(o.value);
      if (o.quality_flag === "valid") {
        svg("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 3.5, class: "chart-point" }, root);
      } else {
        // A flagged reading: a hollow diamond, so it differs in shape and not only in colour.
        var d = 6;
        svg("polygon", {
          class: "chart-flagged",
          points: [cx, cy - d, cx + d, cy, cx, cy + d, cx - d, cy].map(function (v) {
            return v.toFixed(1);
          }).join(" "),
        }, root);
      }
    });
    return root;
  }

  function table(rows, parameter) {
    var wrap = el("div", "table-wrap chart-table");
    wrap.setAttribute("tabindex", "0");
    var t = el("table");
    t.setAttribute("data-parameter", parameter);
    var cap = el("caption", "", nameOf(parameter) + " readings at " + current.name + ", oldest first");
    t.appendChild(cap);
    var head = el("thead");
    var hr = el("tr");
    ["Date", "Value", "Unit", "Quality flag"].forEach(function (h) {
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
      tr.appendChild(el("td", o.quality_flag === "valid" ? "" : "flag", o.quality_flag));
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
    area.appendChild(el("p", "chart-status", "Loading the readings…"));
    readings(site.id, parameter).then(
      function (rows) {
        if (mine !== serial) return;
        area.textContent = "";
        if (!rows.length) {
          area.appendChild(el("p", "", "No " + nameOf(parameter) + " readings were published for this site."));
        } else {
          var fig = el("figure", "chart-figure");
          fig.appendChild(chart(rows, parameter));
          var legend = el("figcaption", "chart-legend");
          legend.appendChild(el("span", "key-valid", "Reading"));
          legend.appendChild(el("span", "key-flagged", "Flagged reading (suspect, unverified or invalid)"));
          legend.appendChild(
            el("span", "", "The last " + rows.length + " readings. Source: " + src + "?site=" + site.id + "&parameter=" + parameter)
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
        var p = el("p", "notice", "The readings could not be loaded. Try again later, or open " + src + "?site=" + site.id + ".");
        p.setAttribute("role", "status");
        area.appendChild(p);
        area.setAttribute("aria-busy", "false");
      }
    );
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
      ["Country", site.country],
      ["Water body", (site.water || "").replace(/_/g, " ")],
      ["Observations", num.format(site.count)],
      ["Latest observation", site.latest ? day.format(new Date(site.latest)) : "—"],
    ].forEach(function (f) {
      var d = el("div");
      d.appendChild(el("dt", "", f[0]));
      d.appendChild(el("dd", "", f[1]));
      dl.appendChild(d);
    });
    box.appendChild(dl);
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
      box.appendChild(el("p", "", "No readings were published for this site."));
      return;
    }
    var group = el("div", "chart-params");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Parameter to chart");
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
