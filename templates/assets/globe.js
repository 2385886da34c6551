// The globe of monitoring sites in #globe (data-src: GeoJSON route,
// data-world: the land outline, world.json). An orthographic projection on a
// <canvas>, no library and no map tiles: drag (mouse, pen or touch) to turn
// it, pinch, the wheel or the buttons to zoom, arrow keys and +/- when the
// globe has focus. Points are sized and coloured by observation count (see
// the legend). Once drawn, the container gets data-points-drawn = the number
// of point features placed on the globe, and the table #globe-table is
// filled with the same sites (searchable, a page at a time), so everything
// is also readable without the picture. Selecting a site (a click or tap on
// its point, Enter for the point nearest the middle, or its name in the
// table) sends a "siteselect" event that readings.js answers with the
// site's charts. Without #globe, this does nothing.
(function () {
  "use strict";
  var box = document.getElementById("globe");
  var table = document.getElementById("globe-table");
  if (!box && !table) return;
  var src = (box || table).getAttribute("data-src") || "/api/globe-data.php";
  var worldUrl = box ? box.getAttribute("data-world") : null;
  // The interface words in the page's language (words.{code}.js).
  var say = window.uiWord;
  var lang = document.documentElement.lang || "en";
  var english = /^en(-|$)/i.test(lang);
  var num = new Intl.NumberFormat(lang);
  // A day in the page's language; on an English page as the route writes
  // it (2026-11-30), as it always was.
  var dayFormat = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" });
  function dayOf(iso) {
    var ymd = iso.slice(0, 10);
    var d = new Date(ymd + "T00:00:00Z");
    return english || isNaN(d) ? ymd : dayFormat.format(d);
  }
  // A longitude or latitude to two decimals (an English page keeps
  // toFixed's point; others their own decimal sign).
  var coordFormat = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  function coord(v) {
    return english ? v.toFixed(2) : coordFormat.format(v);
  }
  // A water-body type of the contract's vocabulary in the page's language;
  // another as the route writes it.
  function waterOf(type) {
    var key = "globe.water_" + type;
    var word = type ? say(key) : "";
    return word && word !== key ? word : type.replace(/_/g, " ");
  }
  var RAD = Math.PI / 180;
  var TIMEOUT_MS = 20000;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function getJSON(url) {
    var ctrl = "AbortController" in window ? new AbortController() : null;
    var guard = setTimeout(function () {
      if (ctrl) ctrl.abort();
    }, TIMEOUT_MS);
    return fetch(url, { signal: ctrl ? ctrl.signal : undefined }).then(function (r) {
      clearTimeout(guard);
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.json();
    });
  }

  // Valid point features only; anything else in the collection is skipped.
  function pointsOf(geo) {
    var feats = geo && Array.isArray(geo.features) ? geo.features : [];
    return feats
      .filter(function (f) {
        var c = f && f.geometry && f.geometry.type === "Point" && f.geometry.coordinates;
        return c && isFinite(c[0]) && isFinite(c[1]);
      })
      .map(function (f) {
        var p = f.properties || {};
        return {
          id: f.id,
          lon: +f.geometry.coordinates[0],
          lat: +f.geometry.coordinates[1],
          name: p.name || p.site_id || String(f.id),
          country: p.country || "",
          water: p.water_body_type || "",
          count: typeof p.observations === "number" ? p.observations : 0,
          latest: p.latest_observed_at || "",
          parameters: Array.isArray(p.parameters) ? p.parameters : [],
        };
      });
  }

  // ---- the site table: searchable, a page of rows at a time ---------------
  // Selecting a site (its name's button in the table, or a point on the
  // globe) sends a "siteselect" event with the site, for readings.js.
  var PAGE = 25;
  function select(p) {
    if (p) document.dispatchEvent(new CustomEvent("siteselect", { detail: p }));
  }
  function fillTable(points) {
    if (!table) return;
    // Each column by its header: a data-col attribute (name, country,
    // water, count, latest, coords) where the page gives one, else the
    // header's words, in English or Dutch.
    var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
      return [th.getAttribute("data-col"), th.textContent.trim().toLowerCase()];
    });
    var cols = heads.length
      ? heads.map(function (head) {
          var h = head[1];
          if (head[0]) return head[0];
          if (/countr|^land/.test(h)) return "country";
          if (/water/.test(h)) return "water";
          if (/latest|date|last|laatst|datum/.test(h)) return "latest";
          if (/observ|count|waarnem|aantal/.test(h)) return "count";
          if (/longitude|latitude|coord|location|lengte|breedte|coördinat|locatie/.test(h)) return "coords";
          return "name";
        })
      : ["name", "country", "count", "latest"];
    var body = table.tBodies[0] || table.appendChild(document.createElement("tbody"));
    var all = points.slice().sort(function (a, b) {
      return b.count - a.count || a.name.localeCompare(b.name);
    });
    var shown = all;
    var page = 0;

    // The search box above the table and the pager below it.
    var tools = el("div", "table-tools");
    var label = el("label", "", say("globe.find_site"));
    var input = el("input");
    input.type = "search";
    input.id = "site-filter";
    input.setAttribute("autocomplete", "off");
    input.setAttribute("aria-controls", table.id || "globe-table");
    label.setAttribute("for", input.id);
    tools.appendChild(label);
    tools.appendChild(input);
    var wrap = table.closest(".table-wrap") || table;
    wrap.parentNode.insertBefore(tools, wrap);
    var pager = el("nav", "table-pager");
    pager.setAttribute("aria-label", say("globe.pages_of_sites"));
    var prev = el("button", "btn", say("globe.previous"));
    prev.type = "button";
    var status = el("p", "table-status");
    status.setAttribute("aria-live", "polite");
    var next = el("button", "btn", say("globe.next"));
    next.type = "button";
    pager.appendChild(prev);
    pager.appendChild(status);
    pager.appendChild(next);
    wrap.parentNode.insertBefore(pager, wrap.nextSibling);

    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.min(Math.max(page, 0), pages - 1);
      var rows = document.createDocumentFragment();
      shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (p) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-site", String(p.id));
        cols.forEach(function (c, i) {
          var td = document.createElement(i === 0 ? "th" : "td");
          if (i === 0) td.setAttribute("scope", "row");
          if (c === "name") {
            var b = el("button", "link-button", p.name);
            b.type = "button";
            b.setAttribute("aria-label", say("globe.show_readings", { name: p.name }));
            b.addEventListener("click", function () {
              select(p);
            });
            td.appendChild(b);
          } else if (c === "country") td.textContent = p.country;
          else if (c === "water") td.textContent = waterOf(p.water);
          else if (c === "count") {
            td.textContent = num.format(p.count);
            td.className = "num";
          } else if (c === "latest") {
            if (p.latest) {
              var t = document.createElement("time");
              t.dateTime = p.latest;
              t.textContent = dayOf(p.latest);
              td.appendChild(t);
            }
          } else if (c === "coords") td.textContent = say("globe.coordinates", { lon: coord(p.lon), lat: coord(p.lat) });
          tr.appendChild(td);
        });
        rows.appendChild(tr);
      });
      body.textContent = "";
      if (!shown.length) {
        var tr = document.createElement("tr");
        var td = el("td", "", say("globe.no_match", { query: input.value }));
        td.colSpan = cols.length;
        tr.appendChild(td);
        rows.appendChild(tr);
      }
      body.appendChild(rows);
      var first = shown.length ? page * PAGE + 1 : 0;
      var last = Math.min(shown.length, page * PAGE + PAGE);
      status.textContent = say(shown.length !== all.length ? "globe.sites_shown_matching" : "globe.sites_shown", {
        first: num.format(first),
        last: num.format(last),
        shown: num.format(shown.length),
        all: num.format(all.length),
      });
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
      table.setAttribute("data-shown", String(shown.length));
      table.setAttribute("data-page", String(page + 1));
    }
    prev.addEventListener("click", function () {
      page--;
      render();
    });
    next.addEventListener("click", function () {
      page++;
      render();
    });
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      shown = q
        ? all.filter(function (p) {
            var water = waterOf(p.water);
            var text = p.name + " " + p.country + " " + p.water + " " + p.id + (water !== p.water ? " " + water : "");
            return text.toLowerCase().indexOf(q) >= 0;
          })
        : all;
      page = 0;
      render();
    });
    render();
    table.setAttribute("data-rows", String(points.length));
  }
  function tableMessage(text) {
    if (!table) return;
    var body = table.tBodies[0] || table.appendChild(document.createElement("tbody"));
    var n = table.querySelectorAll("thead th").length || 1;
    body.textContent = "";
    var tr = document.createElement("tr");
    var td = el("td", "", text);
    td.colSpan = n;
    tr.appendChild(td);
    body.appendChild(tr);
  }

  // ---- the globe ----------------------------------------------------------
  function Globe(container, rings, points) {
    this.box = container;
    this.rings = rings; // [[lon, lat, lon, lat, ...] in degrees]
    this.points = points;
    this.lon0 = 10; // centre of the view: Europe, where the sample sites are
    this.lat0 = 35;
    this.zoom = 1;
    this.pointers = new Map();
    this.max = points.reduce(function (m, p) {
      return Math.max(m, p.count);
    }, 1);
    // Count classes for colour and legend: terciles of the sites' counts,
    // so one very busy site does not put every other site in one class.
    var counts = points
      .map(function (p) {
        return p.count;
      })
      .sort(function (a, b) {
        return a - b;
      });
    var q = function (f) {
      return counts.length ? counts[Math.min(counts.length - 1, Math.floor(f * counts.length))] : 1;
    };
    this.t1 = Math.max(1, q(1 / 3));
    this.t2 = Math.max(this.t1 + 1, q(2 / 3));
    if (points.length) {
      var sx = 0;
      var sy = 0;
      var lat = 0;
      points.forEach(function (p) {
        sx += Math.cos(p.lon * RAD);
        sy += Math.sin(p.lon * RAD);
        lat += p.lat;
      });
      this.lon0 = Math.atan2(sy, sx) / RAD;
      this.lat0 = Math.max(-60, Math.min(60, lat / points.length));
      // Start zoomed in so the sites fill most of the view.
      var self = this;
      var far = 0;
      points.forEach(function (p) {
        var xy = self.projectUnit(p.lon, p.lat);
        far = Math.max(far, xy[2] > 0 ? Math.hypot(xy[0], xy[1]) : 1);
      });
      this.zoom = Math.max(1, Math.min(6, 0.75 / Math.max(far, 0.05)));
    }
    this.home = [this.lon0, this.lat0, this.zoom];
    this.build();
  }

  Globe.prototype.build = function () {
    var self = this;
    var box = this.box;
    // The page may have marked the container as one image; it now holds
    // controls, so it becomes a labelled group and the canvas the image.
    var label = box.getAttribute("aria-label") || say("globe.label");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", label);
    box.textContent = "";
    box.classList.add("globe-wrap");

    var help = el("p", "globe-help", say("globe.help"));
    help.id = "globe-help";
    var canvas = el("canvas", "globe-canvas");
    canvas.tabIndex = 0;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", say("globe.canvas_label", { count: num.format(this.points.length) }));
    canvas.setAttribute("aria-describedby", "globe-help");
    canvas.textContent = say("globe.canvas_fallback");
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");

    var controls = el("div", "globe-controls");
    function button(text, aria, fn) {
      var b = el("button", "btn", text);
      b.type = "button";
      b.setAttribute("aria-label", aria);
      b.addEventListener("click", fn);
      controls.appendChild(b);
      return b;
    }
    button("+", say("globe.zoom_in"), function () {
      self.setZoom(self.zoom * 1.3);
    });
    button("\u2212", say("globe.zoom_out"), function () {
      self.setZoom(self.zoom / 1.3);
    });
    button(say("globe.reset_view"), say("globe.reset_view"), function () {
      self.lon0 = self.home[0];
      self.lat0 = self.home[1];
      self.setZoom(self.home[2]);
    });

    var legend = el("ul", "legend");
    legend.setAttribute("aria-label", say("globe.legend_label"));
    [
      ["s1", say("globe.legend_range", { low: num.format(1), high: num.format(this.t1) })],
      ["s2", say("globe.legend_range", { low: num.format(this.t1 + 1), high: num.format(this.t2) })],
      ["s3", say("globe.legend_more", { n: num.format(this.t2) })],
    ].forEach(function (item) {
      var li = el("li");
      var sw = el("span", "swatch " + item[0]);
      sw.setAttribute("aria-hidden", "true");
      li.appendChild(sw);
      li.appendChild(document.createTextNode(item[1]));
      legend.appendChild(li);
    });

    this.info = el("p", "globe-info");
    this.info.setAttribute("aria-live", "polite");

    box.appendChild(canvas);
    box.appendChild(controls);
    box.appendChild(legend);
    box.appendChild(help);
    box.appendChild(this.info);

    this.bindInput();
    this.resize();
    if ("ResizeObserver" in window) {
      new ResizeObserver(function () {
        self.resize();
      }).observe(canvas);
    } else {
      window.addEventListener("resize", function () {
        self.resize();
      });
    }
    document.addEventListener("themechange", function () {
      self.draw();
    });
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener)
        mq.addEventListener("change", function () {
          self.draw();
        });
    }
  };

  Globe.prototype.resize = function () {
    var dpr = window.devicePixelRatio || 1;
    var w = this.canvas.clientWidth || 300;
    this.size = w;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(w * dpr);
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.draw();
  };

  Globe.prototype.setZoom = function (z) {
    this.zoom = Math.max(0.8, Math.min(16, z));
    this.draw();
  };

  Globe.prototype.rotate = function (dLon, dLat) {
    this.lon0 = ((this.lon0 + dLon + 540) % 360) - 180;
    this.lat0 = Math.max(-90, Math.min(90, this.lat0 + dLat));
    this.draw();
  };

  // Orthographic projection on the unit sphere around (lon0, lat0):
  // [x, y (up), z]; z > 0 on the visible side.
  Globe.prototype.projectUnit = function (lon, lat) {
    var l = (lon - this.lon0) * RAD;
    var p = lat * RAD;
    var p0 = this.lat0 * RAD;
    var cp = Math.cos(p);
    return [
      cp * Math.sin(l),
      Math.cos(p0) * Math.sin(p) - Math.sin(p0) * cp * Math.cos(l),
      Math.sin(p0) * Math.sin(p) + Math.cos(p0) * cp * Math.cos(l),
    ];
  };

  // The same in canvas pixels: [x, y, z].
  Globe.prototype.project = function (lon, lat) {
    var l = (lon - this.lon0) * RAD;
    var p = lat * RAD;
    var p0 = this.lat0 * RAD;
    var cp = Math.cos(p);
    var x = cp * Math.sin(l);
    var y = Math.cos(p0) * Math.sin(p) - Math.sin(p0) * cp * Math.cos(l);
    var z = Math.sin(p0) * Math.sin(p) + Math.cos(p0) * cp * Math.cos(l);
    return [this.cx + this.r * x, this.cy - this.r * y, z];
  };

  Globe.prototype.colours = function () {
    var cs = getComputedStyle(document.documentElement);
    function v(name, fallback) {
      return cs.getPropertyValue(name).trim() || fallback;
    }
    return {
      ocean: v("--ocean", "#dcebf5"),
      land: v("--land", "#5b6b78"),
      grat: v("--grat", "#b9cfdd"),
      rim: v("--muted", "#57606a"),
      p1: v("--pt1", "#2a9d8f"),
      p2: v("--pt2", "#e9a23b"),
      p3: v("--pt3", "#c2410c"),
      pline: v("--pt-line", "#1b1f24"),
    };
  };

  Globe.prototype.radiusOf = function (count) {
    var k = Math.sqrt(Math.max(0, count) / this.max);
    return (2.5 + 6 * k) * Math.min(1.6, Math.sqrt(this.zoom));
  };

  Globe.prototype.draw = function () {
    var ctx = this.ctx;
    var s = this.size;
    if (!ctx || !s) return;
    var c = this.colours();
    this.cx = s / 2;
    this.cy = s / 2;
    this.r = (s / 2 - 4) * this.zoom;
    ctx.clearRect(0, 0, s, s);

    ctx.save();
    ctx.beginPath();
    ctx.arc(this.cx, this.cy, this.r, 0, 2 * Math.PI);
    ctx.fillStyle = c.ocean;
    ctx.fill();
    ctx.clip();

    // Graticule every 30 degrees.
    ctx.strokeStyle = c.grat;
    ctx.lineWidth = 0.7;
    var lon;
    var lat;
    for (lon = -180; lon < 180; lon += 30) this.line(densify(lon, -90, lon, 90));
    for (lat = -60; lat <= 60; lat += 30) this.line(densify(-180, lat, 180, lat));

    // Coastlines.
    ctx.strokeStyle = c.land;
    ctx.lineWidth = 1.1;
    for (var i = 0; i < this.rings.length; i++) this.line(this.rings[i]);

    // Points, small ones last so they stay visible on top of large ones.
    var drawn = [];
    for (var j = 0; j < this.points.length; j++) {
      var pt = this.points[j];
      var xy = this.project(pt.lon, pt.lat);
      if (xy[2] <= 0) continue;
      drawn.push([xy[0], xy[1], this.radiusOf(pt.count), pt]);
    }
    drawn.sort(function (a, b) {
      return b[2] - a[2];
    });
    ctx.lineWidth = 0.8;
    ctx.strokeStyle = c.pline;
    for (var k = 0; k < drawn.length; k++) {
      var d = drawn[k];
      ctx.beginPath();
      ctx.arc(d[0], d[1], d[2], 0, 2 * Math.PI);
      ctx.fillStyle = d[3].count > this.t2 ? c.p3 : d[3].count > this.t1 ? c.p2 : c.p1;
      ctx.fill();
      ctx.stroke();
    }
    this.visible = drawn;
    ctx.restore();

    ctx.beginPath();
    ctx.arc(this.cx, this.cy, this.r, 0, 2 * Math.PI);
    ctx.strokeStyle = c.rim;
    ctx.lineWidth = 1;
    ctx.stroke();
  };

  function densify(lon1, lat1, lon2, lat2) {
    var out = [];
    var n = 60;
    for (var i = 0; i <= n; i++) {
      out.push(lon1 + ((lon2 - lon1) * i) / n, lat1 + ((lat2 - lat1) * i) / n);
    }
    return out;
  }

  // A polyline of [lon, lat, ...]; segments on the far side are skipped.
  Globe.prototype.line = function (flat) {
    var ctx = this.ctx;
    ctx.beginPath();
    var pen = false;
    for (var i = 0; i < flat.length; i += 2) {
      var p = this.project(flat[i], flat[i + 1]);
      if (p[2] > 0) {
        if (pen) ctx.lineTo(p[0], p[1]);
        else ctx.moveTo(p[0], p[1]);
        pen = true;
      } else {
        pen = false;
      }
    }
    ctx.stroke();
  };

  // The visible site nearest (x, y) within `reach` pixels of its dot's
  // edge (4 by default).
  Globe.prototype.pick = function (x, y, reach) {
    var best = null;
    var bestD = Infinity;
    var extra = reach === undefined ? 4 : reach;
    (this.visible || []).forEach(function (d) {
      var dist = Math.hypot(d[0] - x, d[1] - y);
      if (dist <= d[2] + extra && dist < bestD) {
        best = d[3];
        bestD = dist;
      }
    });
    return best;
  };

  Globe.prototype.describe = function (p) {
    this.info.textContent = p
      ? say(p.latest ? "globe.site_info_latest" : "globe.site_info", {
          name: p.name,
          country: p.country,
          count: num.format(p.count),
          date: p.latest ? dayOf(p.latest) : "",
        })
      : "";
  };

  Globe.prototype.bindInput = function () {
    var self = this;
    var canvas = this.canvas;
    var moved = 0;
    var pinch = 0;

    function local(e) {
      var r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    }
    canvas.addEventListener("pointerdown", function (e) {
      canvas.setPointerCapture(e.pointerId);
      self.pointers.set(e.pointerId, local(e));
      moved = 0;
      pinch = 0;
    });
    canvas.addEventListener("pointermove", function (e) {
      var now = local(e);
      var before = self.pointers.get(e.pointerId);
      if (!before) {
        if (e.pointerType === "mouse") self.describe(self.pick(now[0], now[1]));
        return;
      }
      if (self.pointers.size === 2) {
        var pts = Array.from(self.pointers.values());
        self.pointers.set(e.pointerId, now);
        var after = Array.from(self.pointers.values());
        var d0 = Math.hypot(pts[0][0] - pts[1][0], pts[0][1] - pts[1][1]);
        var d1 = Math.hypot(after[0][0] - after[1][0], after[0][1] - after[1][1]);
        if (d0 > 0) self.setZoom(self.zoom * (d1 / d0));
        pinch = 1;
        return;
      }
      self.pointers.set(e.pointerId, now);
      var dx = now[0] - before[0];
      var dy = now[1] - before[1];
      moved += Math.abs(dx) + Math.abs(dy);
      // One globe radius of drag turns it by about 60 degrees.
      var k = 60 / Math.max(self.r, 1);
      self.rotate(-dx * k, dy * k);
    });
    function end(e) {
      var at = self.pointers.get(e.pointerId);
      self.pointers.delete(e.pointerId);
      if (e.type === "pointerup" && at && moved < 5 && !pinch) {
        var picked = self.pick(at[0], at[1]);
        self.describe(picked);
        select(picked);
      }
    }
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);
    canvas.addEventListener(
      "wheel",
      function (e) {
        e.preventDefault();
        self.setZoom(self.zoom * Math.exp(-e.deltaY * 0.0015));
      },
      { passive: false }
    );
    canvas.addEventListener("keydown", function (e) {
      var step = 10 / Math.sqrt(self.zoom);
      var handled = true;
      if (e.key === "ArrowLeft") self.rotate(-step, 0);
      else if (e.key === "ArrowRight") self.rotate(step, 0);
      else if (e.key === "ArrowUp") self.rotate(0, step);
      else if (e.key === "ArrowDown") self.rotate(0, -step);
      else if (e.key === "+" || e.key === "=") self.setZoom(self.zoom * 1.3);
      else if (e.key === "-" || e.key === "_") self.setZoom(self.zoom / 1.3);
      else if (e.key === "Enter" || e.key === " ") {
        // The site nearest the middle of the view.
        var picked = self.pick(self.cx, self.cy, Infinity);
        self.describe(picked);
        select(picked);
      } else if (e.key === "0") {
        self.lon0 = self.home[0];
        self.lat0 = self.home[1];
        self.setZoom(self.home[2]);
      } else handled = false;
      if (handled) e.preventDefault();
    });
  };

  // ---- start --------------------------------------------------------------
  var world = worldUrl
    ? getJSON(worldUrl).then(
        function (w) {
          var scale = w.scale || 1;
          return (w.rings || []).map(function (r) {
            return r.map(function (v) {
              return v / scale;
            });
          });
        },
        function () {
          return []; // the points still make sense without the outline
        }
      )
    : Promise.resolve([]);

  Promise.all([getJSON(src), world]).then(
    function (res) {
      var points = pointsOf(res[0]);
      fillTable(points);
      if (!box) return;
      new Globe(box, res[1], points);
      box.setAttribute("data-points-drawn", String(points.length));
    },
    function () {
      var msg = say("globe.not_here");
      tableMessage(msg);
      if (box) {
        box.textContent = "";
        var p = el("p", "notice", msg);
        p.setAttribute("role", "status");
        box.appendChild(p);
        box.setAttribute("data-points-drawn", "0");
        box.setAttribute("data-unavailable", "");
      }
    }
  );
})();
