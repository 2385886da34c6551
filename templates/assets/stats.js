// Live statistics into #stats (data-src: the statistics route; data-figures:
// which figures, all by default). Numbers are
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
  var lang = document.documentElement.lang || undefined;
  var num = new Intl.NumberFormat(lang);
  var when = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  var REFRESH_S = 60;
  var TIMEOUT_MS = 15000;

  var FIGURES = [
    ["observations", "Observations"],
    ["observations_last_30_days", "Observations in the last 30 days"],
    ["sites", "Monitoring sites"],
    ["countries", "Countries"],
    ["volunteers", "Volunteers"],
    ["classifications", "Classifications"],
    ["classification_projects", "Classification projects"],
    ["projects", "Projects"],
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

    var meta = el("p", "stats-meta");
    if (data.latest_observation_at) {
      meta.appendChild(document.createTextNode("Latest observation: "));
      meta.appendChild(timeEl(data.latest_observation_at));
      meta.appendChild(document.createTextNode(". "));
    }
    meta.appendChild(document.createTextNode("Updated at "));
    var updated = timeEl(data.generated_at);
    updated.className = "stats-updated";
    meta.appendChild(updated);
    meta.appendChild(document.createTextNode(". Source: "));
    var a = el("a", "", src);
    a.href = src;
    meta.appendChild(a);
    meta.appendChild(document.createTextNode("."));
    box.appendChild(meta);

    var state = el("p", fresh ? "stats-state vh" : "stats-state notice");
    state.setAttribute("role", "status");
    state.textContent = fresh
      ? "Live figures updated."
      : note || "These figures may be out of date.";
    box.appendChild(state);
    box.setAttribute("aria-busy", "false");
  }

  function unavailable(message) {
    box.textContent = "";
    box.classList.add("is-unavailable");
    var p = el("p", "notice");
    p.setAttribute("role", "status");
    p.setAttribute("data-stats-unavailable", "");
    p.textContent =
      message ||
      "Live statistics are not available on this copy of the site: it is served without the live data service. " +
        "The figures are published by the observatory's own site at " + src + ".";
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
            ? "The live service could not read its database; these are the last figures it had."
            : "These figures are older than expected and may be out of date.");
          schedule(r.age);
        },
        function (err) {
          clearTimeout(guard);
          if (last) {
            render(last.data, false, "Could not refresh the figures; showing those from the time below.");
            schedule(REFRESH_S);
          } else if (err && err.status && err.status >= 500) {
            // The live service exists but is failing: try again later.
            unavailable("Live statistics are temporarily unavailable. This page tries again every minute.");
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
