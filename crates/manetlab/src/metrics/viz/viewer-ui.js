// manetlab viewer, part 2: time bar, node panel, chart, debug API.
const $ = id => document.getElementById(id);
const scrub = $('scrub'), clock = $('clock'), chart = $('chart'), cctx = chart.getContext('2d');
const SPAN = Math.max(1, W1 - W0);

function fmt(t) { return (t / NS).toFixed(6) + ' s'; }

function setTime(t) {
  state.t = Math.round(Math.min(W1, Math.max(W0, t)));
  scrub.value = String(Math.round((state.t - W0) / SPAN * Number(scrub.max)));
  clock.textContent = fmt(state.t);
  draw();
  drawChart();
  if (!state.playing) panel(); else schedulePanel();
}
let panelTimer = null;
function schedulePanel() {
  if (panelTimer === null) panelTimer = setTimeout(() => { panelTimer = null; panel(); }, 200);
}

// ---- controls -----------------------------------------------------------
scrub.addEventListener('input', () => {
  setTime(W0 + Number(scrub.value) / Number(scrub.max) * SPAN);
});
$('speed').addEventListener('change', e => { state.speed = Number(e.target.value); });
let lastFrame = null;
function tick(now) {
  if (!state.playing) return;
  if (lastFrame !== null) {
    const t = state.t + (now - lastFrame) / 1000 * state.speed * NS;
    if (t >= W1) { setTime(W1); play(false); return; }
    setTime(t);
  }
  lastFrame = now;
  requestAnimationFrame(tick);
}
function play(on) {
  state.playing = on;
  $('play').innerHTML = on ? '&#9208;' : '&#9654;';
  lastFrame = null;
  if (on) requestAnimationFrame(tick); else panel();
}
$('play').addEventListener('click', () => play(!state.playing));
function nextEvent() { const i = upper(eventTimes, state.t); if (i < eventTimes.length) setTime(eventTimes[i]); }
function prevEvent() {
  let lo = 0, hi = eventTimes.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (eventTimes[m] < state.t) lo = m + 1; else hi = m; }
  if (lo > 0) setTime(eventTimes[lo - 1]);
}
$('next').addEventListener('click', nextEvent);
$('prev').addEventListener('click', prevEvent);
$('jump').addEventListener('keydown', e => {
  if (e.key !== 'Enter') return;
  const s = parseFloat(e.target.value);
  if (Number.isFinite(s)) setTime(s * NS);
});
document.addEventListener('keydown', e => {
  if (e.target.tagName === 'INPUT' && e.target.type === 'text') return;
  if (e.key === ' ') { e.preventDefault(); play(!state.playing); }
  if (e.key === 'ArrowRight') nextEvent();
  if (e.key === 'ArrowLeft') prevEvent();
});
const flowSel = $('flow');
D.flows.forEach((f, i) => {
  const o = document.createElement('option');
  o.value = String(i);
  o.textContent = `${i}: ${f.name} (${f.kind} ${f.src}\u2192${f.dst})`;
  flowSel.appendChild(o);
});
flowSel.addEventListener('change', () => { state.flow = Number(flowSel.value); setTime(state.t); });
canvas.addEventListener('click', e => {
  const r = canvas.getBoundingClientRect();
  const x = e.clientX - r.left, y = e.clientY - r.top;
  let best = -1, bd = 14;
  state.screen.forEach((p, k) => { const d = Math.hypot(p[0] - x, p[1] - y); if (d < bd) { bd = d; best = k; } });
  selectNode(best);
});
function selectNode(k) { state.node = k; setTime(state.t); }
chart.addEventListener('click', e => {
  const r = chart.getBoundingClientRect();
  setTime(W0 + (e.clientX - r.left - chartPad) / (r.width - 2 * chartPad) * SPAN);
});
window.addEventListener('resize', () => { layout(); layoutChart(); setTime(state.t); });

// ---- legend -----------------------------------------------------------------
{
  let h = '<h3>Receivers</h3>';
  D.kinds.outcome.forEach((o, i) => { h += `<div><i style="border-color:${OUT_COLOURS[i]}"></i>${o}</div>`; });
  h += '<h3>Frames</h3><div><i style="border-top-style:dashed"></i>RTS</div><div><i style="border-top-style:dotted"></i>CTS / ACK (finer)</div>';
  h += '<div><i style="border-top-width:4px"></i>DATA</div><div>circles: broadcast control (RREQ, HELLO...)</div>';
  h += '<div><i style="border-color:#d32f2f;border-top-style:dotted"></i>link failure</div>';
  if (D.decimate > 1) h += `<p>Decimated: frames of 1 flow packet in ${D.decimate}; no RTS/CTS/ACK.</p>`;
  if (!D.sensed) h += '<p>Receivers below the receive threshold not recorded.</p>';
  $('legend').innerHTML = h;
}

// ---- node panel ---------------------------------------------------------------
function countUpTo(list, times, t, f) { for (const i of list) { if (times[i] > t) break; f(i); } }
function routesAt(k, t) {
  const m = new Map();
  if (D.baseline.length) for (const r of D.baseline[k].routes) m.set(r[0], r);
  countUpTo(routesBy[k], D.routes.t, t, i => {
    const R = D.routes;
    if (R.set[i]) m.set(R.dst[i], [R.dst[i], R.next[i], R.hops[i], R.valid[i], R.seq[i]]);
    else m.delete(R.dst[i]);
  });
  return [...m.values()].sort((a, b) => a[0] - b[0]);
}
/** Everything the panel shows for node k at time t. */
function nodeState(k, t) {
  const b = D.baseline[k] || { queue: 0, tx: [0, 0, 0, 0], retries: 0, rx: [0, 0, 0, 0, 0], drops: [], ctl_sent: [], link_failures: 0, routes: [] };
  const s = {
    queue: queueAt(k, t), tx: b.tx.slice(), retries: b.retries, rx: b.rx.slice(),
    drops: D.kinds.drop.map((_, i) => b.drops[i] || 0), ctl: D.kinds.ctl.map((_, i) => b.ctl_sent[i] || 0),
    linkFailures: b.link_failures, routes: routesAt(k, t),
  };
  countUpTo(framesBy[k], F.t, t, i => { s.tx[F.kind[i]]++; s.retries += F.retry[i]; if (F.ctl[i] >= 0) s.ctl[F.ctl[i]]++; });
  countUpTo(rxBy[k], D.rx.t, t, i => { s.rx[D.rx.out[i]]++; });
  countUpTo(dropsBy[k], D.drops.t, t, i => { s.drops[D.drops.reason[i]]++; });
  countUpTo(linksBy[k], D.links.t, t, () => { s.linkFailures++; });
  return s;
}
function row(cells, th) { return '<tr>' + cells.map(c => th ? `<th>${c}</th>` : `<td>${c}</td>`).join('') + '</tr>'; }
function panel() {
  const k = state.node;
  if (k < 0) { $('nodeid').textContent = '(click one)'; $('panel').innerHTML = ''; return; }
  const s = nodeState(k, state.t);
  const [x, y] = position(k, state.t);
  $('nodeid').textContent = `${k} at (${x.toFixed(1)}, ${y.toFixed(1)}) m`;
  let h = `<table>${row(['interface queue', s.queue])}${row(['link failures', s.linkFailures])}</table>`;
  h += '<h3>MAC frames sent</h3><table>' + D.kinds.frame.map((n, i) => row([n, s.tx[i]])).join('') + row(['retries', s.retries]) + '</table>';
  h += '<h3>Frames heard</h3><table>' + D.kinds.outcome.map((n, i) => row([n, s.rx[i]])).join('') + '</table>';
  const drops = D.kinds.drop.map((n, i) => [n, s.drops[i]]).filter(d => d[1] > 0);
  h += '<h3>Drops by reason</h3><table>' + (drops.length ? drops.map(d => row(d)).join('') : row(['none', ''])) + '</table>';
  const ctl = D.kinds.ctl.map((n, i) => [n, s.ctl[i]]).filter(c => c[1] > 0);
  h += '<h3>Control sent</h3><table>' + (ctl.length ? ctl.map(c => row(c)).join('') : row(['none', ''])) + '</table>';
  h += `<h3>Routing table (${D.routing})</h3><table>` + row(['dst', 'next', 'hops', 'state', 'seq'], true) +
    s.routes.map(r => row([r[0], r[1], r[2] < 0 ? '' : r[2], r[3] ? 'valid' : 'invalid', r[4] < 0 ? '' : r[4]])).join('') + '</table>';
  $('panel').innerHTML = h;
  $('panel').dataset.node = String(k);
}

// ---- chart: per-flow goodput and delay over the window ------------------------
const chartPad = 44;
// Bins of at least half a second (10 to 200 of them).
const BINS = Math.max(10, Math.min(200, Math.round(SPAN / NS / 0.5)));
const binNs = SPAN / BINS;
const series = D.flows.map(() => ({ bytes: new Float64Array(BINS), delay: new Float64Array(BINS), n: new Uint32Array(BINS) }));
D.delivered.t.forEach((t, i) => {
  const b = Math.min(BINS - 1, Math.floor((t - W0) / binNs));
  const s = series[D.delivered.flow[i]];
  if (!s || b < 0) return;
  s.bytes[b] += D.delivered.bytes[i]; s.delay[b] += D.delivered.delay_ns[i]; s.n[b]++;
});
let maxRate = 1, maxDelay = 1;
for (const s of series) for (let b = 0; b < BINS; b++) {
  maxRate = Math.max(maxRate, s.bytes[b] * 8 / (binNs / NS) / 1e3);
  if (s.n[b]) maxDelay = Math.max(maxDelay, s.delay[b] / s.n[b] / 1e6);
}
function layoutChart() {
  const r = chart.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  chart.width = Math.round(r.width * dpr); chart.height = Math.round(r.height * dpr);
  cctx.setTransform(dpr, 0, 0, dpr, 0, 0);
}
function drawChart() {
  const w = chart.width / (window.devicePixelRatio || 1), h = chart.height / (window.devicePixelRatio || 1);
  cctx.clearRect(0, 0, w, h);
  const half = (h - 12) / 2, pw = w - 2 * chartPad;
  const X = b => chartPad + (b + 0.5) / BINS * pw;
  cctx.font = '10px sans-serif'; cctx.fillStyle = '#555';
  cctx.fillText(`goodput, kbit/s per ${(binNs / NS).toFixed(2)} s (max ${maxRate.toFixed(0)})`, 4, 10);
  cctx.fillText(`delay (max ${maxDelay.toFixed(1)} ms)`, 4, half + 18);
  cctx.strokeStyle = '#ddd'; cctx.strokeRect(chartPad, 2, pw, half); cctx.strokeRect(chartPad, half + 10, pw, half);
  series.forEach((s, f) => {
    const c = FLOW_COLOURS[f % FLOW_COLOURS.length];
    cctx.strokeStyle = c; cctx.lineWidth = f === state.flow ? 2.5 : 1.2;
    cctx.beginPath();
    for (let b = 0; b < BINS; b++) {
      const y = 2 + half - (s.bytes[b] * 8 / (binNs / NS) / 1e3) / maxRate * half;
      if (b === 0) cctx.moveTo(X(b), y); else cctx.lineTo(X(b), y);
    }
    cctx.stroke();
    cctx.fillStyle = c;
    for (let b = 0; b < BINS; b++) {
      if (!s.n[b]) continue; // no delivery: no delay point
      cctx.fillRect(X(b) - 1, half + 10 + half - (s.delay[b] / s.n[b] / 1e6) / maxDelay * half - 1, 2, 2);
    }
  });
  const cx = chartPad + (state.t - W0) / SPAN * pw;
  cctx.strokeStyle = '#d32f2f'; cctx.lineWidth = 1;
  cctx.beginPath(); cctx.moveTo(cx, 0); cctx.lineTo(cx, h); cctx.stroke();
}

// ---- debug API (tests, scripting) ------------------------------------------------
window.manetlabViz = {
  data: D,
  setTime: tNs => setTime(tNs),
  time: () => state.t,
  /** CSS pixels of node k's centre inside the canvas, as last drawn. */
  nodeScreenPos: k => ({ x: state.screen[k][0], y: state.screen[k][1] }),
  worldPos: (k, tNs) => position(k, tNs),
  view: () => ({ scale: view.scale, ox: view.ox, oy: view.oy, dpr: view.dpr }),
  nodesDrawn: () => state.drawn,
  selectFlow: f => { flowSel.value = String(f); flowSel.dispatchEvent(new Event('change')); },
  highlightedHops: () => state.hops.map(h => h.slice()),
  highlightedUid: () => state.hopsUid,
  selectNode: k => selectNode(k),
  nodeState: (k, tNs) => nodeState(k, tNs === undefined ? state.t : tNs),
  nextEvent, prevEvent, play,
};

// ---- start ----------------------------------------------------------------------
$('title').textContent = D.scenario;
$('info').textContent = `seed ${D.seed}, ${N} nodes, ${D.flows.length} flows, ${D.routing}; window ${fmt(W0)} - ${fmt(W1)}, ${NF} frames`;
layout(); layoutChart();
{
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.has('flow')) { state.flow = Number(p.get('flow')); flowSel.value = p.get('flow'); }
  if (p.has('node')) state.node = Number(p.get('node'));
  if (p.has('speed')) state.speed = Number(p.get('speed'));
  setTime(p.has('t') ? Number(p.get('t')) * NS : W0);
  // Milliseconds from navigation start to the first drawing (parse included).
  window.manetlabViz.loadMs = performance.now();
  if (p.has('selftest')) selfTest(p);
}

/** Drives the page through its own controls and writes what it saw into
 * the hidden selftest element as JSON (read by the browser test, tests/viz_browser.rs):
 * at each time of `times` (seconds, comma-separated) it scrubs there with the
 * slider and reports every node's screen position and the pixel under it,
 * then selects each flow with the drop-down and reports the highlighted hops. */
function selfTest(p) {
  const out = { errors: window.__vizErrors, nodes: N, loadMs: window.manetlabViz.loadMs, steps: [] };
  const times = (p.get('times') || '').split(',').filter(s => s).map(Number);
  for (const s of times) {
    scrub.value = String(Math.round((s * NS - W0) / SPAN * Number(scrub.max)));
    scrub.dispatchEvent(new Event('input'));
    const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const step = { t: state.t, drawn: state.drawn, view: window.manetlabViz.view(), nodes: [], flows: [] };
    for (let k = 0; k < N; k++) {
      const q = window.manetlabViz.nodeScreenPos(k);
      const px = Math.round(q.x * view.dpr), py = Math.round(q.y * view.dpr);
      const o = (py * canvas.width + px) * 4;
      step.nodes.push([q.x, q.y, img[o], img[o + 1], img[o + 2]]);
    }
    for (let f = 0; f < D.flows.length; f++) {
      window.manetlabViz.selectFlow(f);
      step.flows.push({ flow: f, uid: state.hopsUid, hops: window.manetlabViz.highlightedHops() });
    }
    window.manetlabViz.selectFlow(-1);
    out.steps.push(step);
  }
  // Pixel variance of the drawn area (a blank canvas has none).
  const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let sum = 0, sq = 0, n = 0;
  for (let i = 0; i < img.length; i += 4) { const v = img[i] + img[i + 1] + img[i + 2] + img[i + 3]; sum += v; sq += v * v; n++; }
  out.canvasVariance = n ? sq / n - (sum / n) ** 2 : 0;
  window.manetlabViz.selectNode(0);
  out.panel = $('panel').textContent.length;
  out.errors = window.__vizErrors.slice();
  const pre = $('selftest');
  pre.textContent = JSON.stringify(out);
}
