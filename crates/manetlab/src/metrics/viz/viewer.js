// manetlab viewer, part 1: the recording, geometry and drawing.
// Times are integer nanoseconds as in viz.json (exact in a double up to
// 104 days). Format: docs/viz.md.
'use strict';
const D = JSON.parse(document.getElementById('viz-data').textContent);
const NS = 1e9;
const OUT_COLOURS = ['#2e7d32', '#d32f2f', '#f57c00', '#9e9e9e', '#7b1fa2'];
const FLOW_COLOURS = ['#1565c0', '#c2185b', '#00897b', '#ef6c00', '#5e35b1', '#6d4c41', '#0097a7', '#7cb342'];
// RTS, CTS, ACK, DATA: line dash and width.
const KIND_STYLE = [[[6, 3], 1.2], [[2, 3], 1.2], [[1, 2], 1], [[], 2.2]];
const N = D.nodes.length;
const W0 = D.window_ns[0], W1 = D.window_ns[1];

// ---- indexes over the columns ------------------------------------------
const F = D.frames;
const NF = F.t.length;
// Receptions grouped by frame (counting sort keeps time order inside).
const rxStart = new Uint32Array(NF + 1);
for (const f of D.rx.frame) rxStart[f + 1]++;
for (let i = 0; i < NF; i++) rxStart[i + 1] += rxStart[i];
const rxOrder = new Uint32Array(D.rx.frame.length);
{
  const fill = rxStart.slice(0, NF);
  D.rx.frame.forEach((f, k) => { rxOrder[fill[f]++] = k; });
}
let maxDur = 0;
for (const d of F.dur) maxDur = Math.max(maxDur, d);

/** First index i of sorted array a with a[i] > t. */
function upper(a, t) {
  let lo = 0, hi = a.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] <= t) lo = m + 1; else hi = m; }
  return lo;
}

// Per-node event lists (indices), for the node panel.
function perNode(nodes) {
  const l = Array.from({ length: N }, () => []);
  nodes.forEach((n, i) => { if (n < N) l[n].push(i); });
  return l;
}
const framesBy = perNode(F.src);
const rxBy = perNode(D.rx.node);
const dropsBy = perNode(D.drops.node);
const queuesBy = perNode(D.queues.node);
const routesBy = perNode(D.routes.node);
const linksBy = perNode(D.links.node);

// Every event time, for "next/previous event".
const eventTimes = Array.from(new Set([].concat(F.t, D.rx.t, D.drops.t, D.delivered.t, D.links.t,
  D.routes.t, D.queues.t))).sort((a, b) => a - b);

// The DATA frames carrying each uid.
const framesOfUid = new Map();
for (let i = 0; i < NF; i++) {
  if (F.kind[i] !== 3 || F.uid[i] < 0) continue;
  if (!framesOfUid.has(F.uid[i])) framesOfUid.set(F.uid[i], []);
  framesOfUid.get(F.uid[i]).push(i);
}

// ---- trajectories (as mobility::Trajectory::position) ------------------
/** Position of node k at time t (ns): the last leg starting at or before t. */
function position(k, t) {
  const legs = D.nodes[k].legs;
  let lo = 0, hi = legs.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (legs[m][0] <= t) lo = m + 1; else hi = m; }
  const l = legs[Math.max(0, lo - 1)];
  const dt = Math.max(0, t - l[0]) / NS;
  return [l[1] + l[3] * dt, l[2] + l[4] * dt];
}

// ---- view ---------------------------------------------------------------
const canvas = document.getElementById('area');
// The self-test reads pixels back; ordinary viewing does not.
const ctx = canvas.getContext('2d', { willReadFrequently: location.hash.includes('selftest') });
const view = { scale: 1, ox: 0, oy: 0, pad: 40, width: 0, height: 0, dpr: 1 };
/** Fits the area into the canvas; y grows upwards as in the scenario. */
function layout() {
  const r = canvas.getBoundingClientRect();
  view.dpr = window.devicePixelRatio || 1;
  view.width = Math.max(50, r.width);
  view.height = Math.max(50, r.height);
  canvas.width = Math.round(view.width * view.dpr);
  canvas.height = Math.round(view.height * view.dpr);
  const [x0, y0, x1, y1] = D.area;
  const w = Math.max(x1 - x0, 1), h = Math.max(y1 - y0, 1);
  view.scale = Math.min((view.width - 2 * view.pad) / w, (view.height - 2 * view.pad) / h);
  view.ox = (view.width - w * view.scale) / 2 - x0 * view.scale;
  view.oy = (view.height + h * view.scale) / 2 + y0 * view.scale;
}
/** World metres to CSS pixels inside the canvas. */
function toScreen(x, y) { return [view.ox + x * view.scale, view.oy - y * view.scale]; }

// ---- state ----------------------------------------------------------------
const state = {
  t: W0, playing: false, speed: 0.01, flow: -1, node: -1,
  drawn: 0, screen: new Array(N), hops: [], hopsUid: -1,
};

/** The route flow f used at time t: every hop (transmitter, addressee that
 * decoded it) of DATA frames carrying the flow's latest data packet
 * delivered at or before t. */
function routeOf(f, t) {
  const dl = D.delivered;
  let uid = -1;
  for (let i = upper(dl.t, t) - 1; i >= 0; i--) {
    if (dl.flow[i] === f) { uid = dl.uid[i]; break; }
  }
  if (uid < 0) return { uid: -1, hops: [] };
  const hops = [];
  for (const i of framesOfUid.get(uid) || []) {
    if (F.t[i] > t || F.dst[i] < 0) continue;
    for (let k = rxStart[i]; k < rxStart[i + 1]; k++) {
      const r = rxOrder[k];
      if (D.rx.node[r] === F.dst[i] && D.rx.out[r] === 0 &&
          !hops.some(h => h[0] === F.src[i] && h[1] === F.dst[i])) hops.push([F.src[i], F.dst[i]]);
    }
  }
  return { uid, hops };
}

// ---- drawing ---------------------------------------------------------------
function arrow(a, b, colour, width, dash) {
  const [x0, y0] = a, [x1, y1] = b;
  const d = Math.hypot(x1 - x0, y1 - y0);
  if (d < 1) return;
  const ux = (x1 - x0) / d, uy = (y1 - y0) / d, r = 8;
  const sx = x0 + ux * r, sy = y0 + uy * r, ex = x1 - ux * r, ey = y1 - uy * r;
  ctx.strokeStyle = colour; ctx.fillStyle = colour; ctx.lineWidth = width; ctx.setLineDash(dash);
  ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(ex, ey); ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath(); ctx.moveTo(ex, ey);
  ctx.lineTo(ex - ux * 7 - uy * 3.5, ey - uy * 7 + ux * 3.5);
  ctx.lineTo(ex - ux * 7 + uy * 3.5, ey - uy * 7 - ux * 3.5);
  ctx.closePath(); ctx.fill();
}

/** How long (ns of simulated time) a frame stays drawn after it ends: about
 * a quarter of a second of wall time at the current speed. */
function linger() { return Math.max(0, 0.25 * state.speed * NS); }

function draw() {
  const t = state.t;
  ctx.setTransform(view.dpr, 0, 0, view.dpr, 0, 0);
  ctx.clearRect(0, 0, view.width, view.height);
  const pos = [];
  for (let k = 0; k < N; k++) pos.push(toScreen(...position(k, t)));
  // Range circles of the selected node.
  if (state.node >= 0) {
    const [x, y] = pos[state.node];
    ctx.lineWidth = 1;
    ctx.strokeStyle = '#43a047'; ctx.fillStyle = 'rgba(67,160,71,0.06)'; ctx.setLineDash([]);
    ctx.beginPath(); ctx.arc(x, y, D.radio.rx_range_m * view.scale, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    ctx.strokeStyle = '#90a4ae'; ctx.setLineDash([5, 4]);
    ctx.beginPath(); ctx.arc(x, y, D.radio.cs_range_m * view.scale, 0, 2 * Math.PI); ctx.stroke();
    ctx.setLineDash([]);
  }
  // The selected flow's route.
  state.hops = [];
  if (state.flow >= 0) {
    const r = routeOf(state.flow, t);
    state.hops = r.hops; state.hopsUid = r.uid;
    ctx.globalAlpha = 0.35;
    for (const [a, b] of r.hops) arrow(pos[a], pos[b], FLOW_COLOURS[state.flow % FLOW_COLOURS.length], 9, []);
    ctx.globalAlpha = 1;
  }
  // Link failures in the last half second.
  const lf = D.links;
  for (let i = upper(lf.t, t - NS / 2); i < lf.t.length && lf.t[i] <= t; i++) {
    const a = pos[lf.node[i]], b = pos[lf.next[i]];
    if (!b) continue;
    const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
    ctx.strokeStyle = '#d32f2f'; ctx.lineWidth = 3; ctx.setLineDash([2, 4]);
    ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke(); ctx.setLineDash([]);
    ctx.beginPath(); ctx.moveTo(mx - 6, my - 6); ctx.lineTo(mx + 6, my + 6);
    ctx.moveTo(mx + 6, my - 6); ctx.lineTo(mx - 6, my + 6); ctx.stroke();
  }
  // Frames on the air (or just ended).
  const keep = linger();
  for (let i = upper(F.t, t - maxDur - keep); i < NF && F.t[i] <= t; i++) {
    const end = F.t[i] + F.dur[i];
    if (end + keep < t) continue;
    const s = pos[F.src[i]];
    const progress = Math.min(1, (t - F.t[i]) / Math.max(F.dur[i], 1));
    if (F.ctl[i] >= 0 && F.dst[i] < 0) {
      // A broadcast control message: a wave growing to the receive range.
      ctx.strokeStyle = ctlColour(F.ctl[i]); ctx.lineWidth = 2;
      ctx.globalAlpha = t > end ? 0.4 : 0.9;
      ctx.beginPath(); ctx.arc(s[0], s[1], Math.max(3, progress * D.radio.rx_range_m * view.scale), 0, 2 * Math.PI);
      ctx.stroke(); ctx.globalAlpha = 1;
    }
    const [dash, width] = KIND_STYLE[F.kind[i]];
    for (let k = rxStart[i]; k < rxStart[i + 1]; k++) {
      const r = rxOrder[k];
      if (D.rx.t[r] > t) {
        // Not yet known: draw in the frame's own colour, thin.
        arrow(s, pos[D.rx.node[r]], 'rgba(120,120,120,0.35)', 1, dash);
        continue;
      }
      const out = D.rx.out[r];
      const addressed = F.dst[i] === D.rx.node[r] || F.dst[i] < 0;
      if (out === 3 && !addressed && state.node !== F.src[i]) continue; // sensed only: only for the selected node
      arrow(s, pos[D.rx.node[r]], OUT_COLOURS[out], addressed ? width : 1, dash);
    }
    ctx.fillStyle = F.flow[i] >= 0 ? FLOW_COLOURS[F.flow[i] % FLOW_COLOURS.length] : '#37474f';
    ctx.font = '10px sans-serif';
    const label = F.ctl[i] >= 0 ? D.kinds.ctl[F.ctl[i]] : D.kinds.frame[F.kind[i]] + (F.flow[i] >= 0 ? ' f' + F.flow[i] : '');
    ctx.fillText(label, s[0] + 9, s[1] + 16);
  }
  // Nodes.
  state.drawn = 0;
  ctx.font = '11px sans-serif';
  for (let k = 0; k < N; k++) {
    const [x, y] = pos[k];
    state.screen[k] = [x, y];
    ctx.fillStyle = k === state.node ? '#ffca28' : '#1f77b4';
    ctx.strokeStyle = '#0d2a40'; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    ctx.fillStyle = '#000';
    ctx.fillText(String(k), x + 8, y - 6);
    const q = queueAt(k, t);
    if (q > 0) { ctx.fillStyle = '#ef6c00'; ctx.fillRect(x - 6, y + 8, Math.min(30, 2 * q), 3); }
    state.drawn++;
  }
}

function ctlColour(c) {
  const name = D.kinds.ctl[c] || '';
  if (name.includes('RREQ')) return '#8e24aa';
  if (name.includes('RREP')) return '#00897b';
  if (name.includes('RERR')) return '#d32f2f';
  if (name.includes('HELLO')) return '#90a4ae';
  return '#6d4c41';
}

/** Interface queue length of node k at t. */
function queueAt(k, t) {
  let q = D.baseline.length ? D.baseline[k].queue : 0;
  for (const i of queuesBy[k]) { if (D.queues.t[i] > t) break; q = D.queues.len[i]; }
  return q;
}
