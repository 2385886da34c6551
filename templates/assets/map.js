// The home page's map of monitoring sites in #site-map (a <canvas> inside
// the link to the globe page; data-src: the GeoJSON route, data-world: the
// land outline, world.json). A flat view of Europe, land and one dot per
// public site, drawn once, no interaction: the link opens the globe. Once
// drawn, the canvas gets data-points-drawn = the number of sites placed. On
// a copy of the site without the live service, or without JavaScript, the
// link stays as it is. Without #site-map, this does nothing.
(function () {
  "use strict";
  var canvas = document.getElementById("site-map");
  if (!canvas || !canvas.getContext) return;
  var src = canvas.getAttribute("data-src") || "/api/globe-data.php";
  var worldUrl = canvas.getAttribute("data-world");
  // The view: longitude and latitude of the west, east, south and north edges.
  var WEST = -12, EAST = 32, SOUTH = 35, NORTH = 66;
  var TIMEOUT_MS = 15000;

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

  function colour(name, fallback) {
    var v = getComputedStyle(canvas).getPropertyValue(name).trim();
    return v || fallback;
  }

  function draw(world, geo) {
    var w = canvas.width, h = canvas.height;
    var ctx = canvas.getContext("2d");
    // Equirectangular, with longitude shrunk by the cosine of the view's
    // middle latitude so the shapes look as people know them.
    var k = Math.cos(((SOUTH + NORTH) / 2) * Math.PI / 180);
    var sx = w / ((EAST - WEST) * k), sy = h / (NORTH - SOUTH);
    var s = Math.min(sx, sy);
    var ox = (w - (EAST - WEST) * k * s) / 2, oy = (h - (NORTH - SOUTH) * s) / 2;
    function x(lon) { return ox + (lon - WEST) * k * s; }
    function y(lat) { return oy + (NORTH - lat) * s; }
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = colour("--ocean", "#dcebf5");
    ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = colour("--land", "#5b6b78");
    ctx.strokeStyle = colour("--grat", "#b9cfdd");
    ctx.lineWidth = 0.6;
    var scale = (world && world.scale) || 10;
    (world && world.rings || []).forEach(function (ring) {
      ctx.beginPath();
      for (var i = 0; i + 1 < ring.length; i += 2) {
        var px = x(ring[i] / scale), py = y(ring[i + 1] / scale);
        if (i === 0) ctx.moveTo(px, py);
        else ctx.lineTo(px, py);
      }
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    });
    var drawn = 0;
    ctx.fillStyle = colour("--pt2", "#e9a23b");
    var feats = geo && Array.isArray(geo.features) ? geo.features : [];
    feats.forEach(function (f) {
      var c = f && f.geometry && f.geometry.type === "Point" && f.geometry.coordinates;
      if (!c || !isFinite(c[0]) || !isFinite(c[1])) return;
      ctx.beginPath();
      ctx.arc(x(+c[0]), y(+c[1]), 2.2, 0, 2 * Math.PI);
      ctx.fill();
      drawn++;
    });
    canvas.setAttribute("data-points-drawn", String(drawn));
    canvas.classList.add("is-drawn");
  }

  Promise.all([worldUrl ? getJSON(worldUrl) : Promise.resolve(null), getJSON(src)]).then(
    function (r) {
      draw(r[0], r[1]);
    },
    function () {
      // No live service here: the link to the globe page stays as it is.
      canvas.setAttribute("data-points-drawn", "0");
    }
  );
})();
