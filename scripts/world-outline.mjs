#!/usr/bin/env node
// One-off conversion of Natural Earth's 1:110m land polygons (public domain,
// https://www.naturalearthdata.com/) as packaged in TopoJSON by the npm
// package `world-atlas` (ISC licence) into templates/assets/world.json, the
// outline the globe page draws. Run it only when the outline should change;
// the output is committed, so neither the site nor its tests need the package.
//
//   npm install --prefix "$(mktemp -d)" world-atlas@2.0.2   # then:
//   node scripts/world-outline.mjs PATH/node_modules/world-atlas/land-110m.json
//
// The TopoJSON arcs are decoded here (delta-encoded, quantised integers,
// then the topology's transform) so no other package is needed. Coordinates
// are quantised to 0.1 degree and written as integers (tenths of a degree);
// each ring is a flat list [lon0, lat0, lon1, lat1, ...].
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const input = process.argv[2];
if (!input) {
  console.error("usage: node scripts/world-outline.mjs .../world-atlas/land-110m.json [OUT]");
  process.exit(2);
}
const out =
  process.argv[3] ??
  join(dirname(fileURLToPath(import.meta.url)), "..", "templates", "assets", "world.json");

const topo = JSON.parse(readFileSync(input, "utf8"));
if (topo.type !== "Topology") throw new Error(`${input}: not a TopoJSON topology`);
const [sx, sy] = topo.transform ? topo.transform.scale : [1, 1];
const [tx, ty] = topo.transform ? topo.transform.translate : [0, 0];

// Absolute coordinates of every arc.
const arcs = topo.arcs.map((arc) => {
  let x = 0;
  let y = 0;
  return arc.map(([dx, dy]) => {
    if (topo.transform) {
      x += dx;
      y += dy;
      return [x * sx + tx, y * sy + ty];
    }
    return [dx, dy];
  });
});

// A ring is a list of arc indexes; ~i means arc i reversed. Consecutive arcs
// share their joining point, so it is dropped from all but the first.
function ring(indexes) {
  const points = [];
  for (const i of indexes) {
    const arc = i < 0 ? arcs[~i].slice().reverse() : arcs[i];
    arc.forEach((p, k) => {
      if (k > 0 || points.length === 0) points.push(p);
    });
  }
  return points;
}

const rings = [];
function addPolygon(polygon) {
  for (const indexes of polygon) {
    const flat = [];
    let last = null;
    for (const [lon, lat] of ring(indexes)) {
      const q = [Math.round(lon * 10), Math.round(lat * 10)];
      if (last && q[0] === last[0] && q[1] === last[1]) continue;
      flat.push(q[0], q[1]);
      last = q;
    }
    // Fewer than three distinct corners draws nothing at this scale.
    if (flat.length >= 8) rings.push(flat);
  }
}

function addGeometry(g) {
  if (g.type === "GeometryCollection") g.geometries.forEach(addGeometry);
  else if (g.type === "Polygon") addPolygon(g.arcs);
  else if (g.type === "MultiPolygon") g.arcs.forEach(addPolygon);
}
Object.values(topo.objects).forEach(addGeometry);

const doc = {
  source:
    "Natural Earth 1:110m land (public domain), via the npm package world-atlas (ISC); converted by scripts/world-outline.mjs",
  scale: 10,
  rings,
};
writeFileSync(out, JSON.stringify(doc) + "\n");
const points = rings.reduce((n, r) => n + r.length / 2, 0);
console.log(`${out}: ${rings.length} rings, ${points} points`);
