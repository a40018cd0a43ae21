// Copyright 2026 The custody Authors.
//
// custody/report/report.js — report.html's script (html.cc embeds it at build time): draws each
// contender's timeline from the page's embedded JSON (model.h, chart_data), stacked by category with
// the live-set bound's schedule, with the hover readouts; counts the page's errors into
// body[data-errors]; under #selftest (headless.py) hovers every chart and writes what appeared.
(function () {
  'use strict';
  const errors = [];
  function noteErrors() {
    document.body.dataset.errors = String(errors.length);
    document.getElementById('errors').textContent = errors.join('\n');
  }
  window.addEventListener('error', function (e) { errors.push(String(e.message)); noteErrors(); });
  const consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, ' '));
    noteErrors();
    consoleError.apply(console, arguments);
  };
  noteErrors();
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const W = 900, H = 260, L = 64, R = 12, T = 12, B = 34;
  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(bytes) { return (bytes / 1048576).toFixed(2) + ' MiB'; }

  function draw(box, c, unit) {
    const s = c.samples, nc = data.categories.length;
    const svg = el('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H}, box);
    const t0 = s.length ? s[0][0] : 0;
    const t1 = s.length ? Math.max(s[s.length - 1][0], t0 + 1e-9) : 1;
    let ymax = Math.max(1, c.lower_bound_bytes);
    for (const p of s) {
      let tot = 0;
      for (let k = 1; k <= nc; ++k) tot += p[k];
      ymax = Math.max(ymax, tot, p[nc + 1]);
    }
    ymax *= 1.05;
    const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
    const y = b => H - B - b / ymax * (H - T - B);
    for (let i = 0; i <= 4; ++i) {  // axes
      const b = ymax * i / 4, yy = y(b);
      el('line', {x1: L, x2: W - R, y1: yy, y2: yy, stroke: '#e4e4e4'}, svg);
      el('text', {x: L - 4, y: yy + 4, 'text-anchor': 'end', 'font-size': 10}, svg).textContent =
          (b / 1048576).toFixed(2);
    }
    // Steps at round intervals (1, 2 or 5 times a power of ten), about six of them.
    const raw = (t1 - t0) / 6, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const every = [1, 2, 5, 10].map(m => m * mag).find(v => v >= raw);
    for (let t = Math.ceil(t0 / every) * every; t <= t1 + 1e-9; t += every) {
      el('line', {x1: x(t), x2: x(t), y1: H - B, y2: H - B + 3, stroke: '#888'}, svg);
      el('text', {x: x(t), y: H - B + 14, 'text-anchor': 'middle', 'font-size': 10}, svg).textContent =
          String(Math.round(t * 1000) / 1000);
    }
    el('text', {x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', 'font-size': 11}, svg).textContent = unit;
    el('text', {x: 12, y: T + (H - T - B) / 2, 'font-size': 11, transform: 'rotate(-90 12 ' + (T + (H - T - B) / 2) + ')',
                'text-anchor': 'middle'}, svg).textContent = 'MiB in use';
    // Stacked areas, step after each sample.
    const base = s.map(() => 0);
    for (let k = 1; k <= nc; ++k) {
      if (!s.some(p => p[k] > 0)) continue;
      let up = '', down = '';
      for (let i = 0; i < s.length; ++i) {
        const xa = x(s[i][0]), xb = x(i + 1 < s.length ? s[i + 1][0] : t1);
        const lo = base[i], hi = lo + s[i][k];
        up += (i ? 'L' : 'M') + xa.toFixed(1) + ',' + y(hi).toFixed(1) + 'L' + xb.toFixed(1) + ',' + y(hi).toFixed(1);
        down = 'L' + xb.toFixed(1) + ',' + y(lo).toFixed(1) + 'L' + xa.toFixed(1) + ',' + y(lo).toFixed(1) + down;
        base[i] = hi;
      }
      el('path', {d: up + down + 'Z', fill: data.colors[k - 1], 'fill-opacity': 0.85, class: 'area',
                  'data-category': data.categories[k - 1]}, svg);
    }
    // The live-set bound's schedule, and its peak.
    let d = '';
    for (let i = 0; i < s.length; ++i) {
      const xa = x(s[i][0]), xb = x(i + 1 < s.length ? s[i + 1][0] : t1), yy = y(s[i][nc + 1]);
      d += (i ? 'L' : 'M') + xa.toFixed(1) + ',' + yy.toFixed(1) + 'L' + xb.toFixed(1) + ',' + yy.toFixed(1);
    }
    if (d) el('path', {d: d, fill: 'none', stroke: '#000', 'stroke-width': 1.2, class: 'bound'}, svg);
    const yb = y(c.lower_bound_bytes);
    el('line', {x1: L, x2: W - R, y1: yb, y2: yb, stroke: '#000', 'stroke-dasharray': '5 4', class: 'bound-peak'}, svg);
    el('text', {x: W - R - 4, y: yb - 4, 'text-anchor': 'end', 'font-size': 10}, svg).textContent =
        'live-set bound ' + fmt(c.lower_bound_bytes);
    // The peak, and what was alive then (the detail table rendered beside the chart).
    const detail = box.querySelector('.peak-detail');
    const peak = el('circle', {cx: x(c.peak_step), cy: y(c.peak_bytes), r: 6, fill: '#fff', stroke: '#b00',
                               'stroke-width': 2, class: 'peak'}, svg);
    el('title', {}, peak).textContent = 'peak ' + fmt(c.peak_bytes) + ': hover for what was alive';
    peak.addEventListener('mouseenter', () => { detail.hidden = false; });
    peak.addEventListener('mouseleave', () => { detail.hidden = true; });
    // Hover anywhere: the bytes by category at that moment.
    const tip = document.createElement('div');
    tip.className = 'tip';
    box.appendChild(tip);
    const rule = el('line', {y1: T, y2: H - B, stroke: '#555', 'stroke-width': 0.5, visibility: 'hidden'}, svg);
    svg.addEventListener('mousemove', ev => {
      const r = svg.getBoundingClientRect();
      const px = ev.clientX - r.left;
      const t = t0 + (px - L) / (W - L - R) * (t1 - t0);
      let lo = 0, hi = s.length - 1;
      while (lo < hi) {  // the last sample at or before t
        const mid = (lo + hi + 1) >> 1;
        if (s[mid][0] <= t) lo = mid; else hi = mid - 1;
      }
      const p = s[lo];
      if (!p) return;
      let rows = '<b>' + unit + ' ' + p[0].toFixed(2) + '</b>', tot = 0;
      for (let k = nc; k >= 1; --k) {
        if (p[k] === 0) continue;
        tot += p[k];
        rows += '<br><span class="sw" style="background:' + data.colors[k - 1] + '"></span>' +
                data.categories[k - 1] + ' ' + fmt(p[k]);
      }
      rows += '<br>in use ' + fmt(tot) + '<br>bound schedule ' + fmt(p[nc + 1]);
      tip.innerHTML = rows;
      tip.style.display = 'block';
      tip.style.left = Math.min(px + 12, W - 180) + 'px';
      tip.style.top = '8px';
      rule.setAttribute('x1', px);
      rule.setAttribute('x2', px);
      rule.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseleave', () => { tip.style.display = 'none'; rule.setAttribute('visibility', 'hidden'); });
    return svg;
  }

  let charts = 0;
  document.querySelectorAll('div.chart').forEach(box => {
    const w = data.workloads[Number(box.dataset.w)];
    draw(box, w.contenders[Number(box.dataset.c)], w.unit);
    ++charts;
  });
  document.body.dataset.charts = String(charts);
  document.body.dataset.rendered = 'yes';

  // #selftest (the headless test): hover every peak and the middle of every chart.
  if (location.hash === '#selftest') {
    const result = [];
    document.querySelectorAll('div.chart').forEach(box => {
      const svg = box.querySelector('svg'), peak = box.querySelector('circle.peak');
      const detail = box.querySelector('.peak-detail'), tip = box.querySelector('.tip');
      peak.dispatchEvent(new MouseEvent('mouseenter'));
      const peakShown = !detail.hidden && detail.textContent.length > 0;
      const peakRows = detail.querySelectorAll('tr').length;
      peak.dispatchEvent(new MouseEvent('mouseleave'));
      const r = svg.getBoundingClientRect();
      svg.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
      // The contender's held-by sentence and table, between its chart and the next contender's heading.
      let heldBy = null, heldByRows = 0;
      for (let n = box.nextElementSibling; n && n.tagName !== 'H3'; n = n.nextElementSibling) {
        if (n.matches('p.held-by') && n.offsetHeight > 0) heldBy = n.textContent;
        if (n.matches('table.held-by')) heldByRows = n.querySelectorAll('tr').length - 1;
      }
      result.push({name: box.dataset.name, areas: svg.querySelectorAll('path.area').length,
                   bound: svg.querySelectorAll('path.bound').length, peak_shown: peakShown, peak_rows: peakRows,
                   tip: tip.textContent, held_by: heldBy, held_by_rows: heldByRows});
    });
    document.getElementById('selftest').textContent = JSON.stringify(result);
  }
})();
