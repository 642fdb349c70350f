// The token-use chart of the Status page: an inline SVG built with DOM calls (never parsed
// from text), one group per day with a bar for input and one for output tokens, and the
// day's cost as a line over them (its own scale, on the right). It is one picture to a screen
// reader (`role="img"` with a summary in words); the numbers themselves are in the table the
// page puts beside it. Colours come from app.css classes: the policy refuses inline styles.

import { count, shortDate, usd } from '../format.js';

// The SVG namespace is a name, not an address: nothing is loaded from it (the source check
// in tests/server/assets.rs allows exactly this one).
const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const HEIGHT = 240;
const PAD = { left: 56, right: 56, top: 14, bottom: 30 };

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Rounded up to 1, 2 or 5 times a power of ten, so the scale's top reads well. */
export function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/** Whether the chart draws a cost line: only when some call had a price (a row of zeros
 * would read as "free"). */
export function hasCost(usage) {
  return (usage.days || []).some((d) => d.calls > 0 && d.cost_usd !== null && d.cost_usd !== undefined);
}

/** The chart's summary in words (its accessible name). */
export function summarise(usage) {
  const days = usage.days || [];
  const total = usage.total || {};
  const busiest = days.reduce((best, d) =>
    (d.input_tokens + d.output_tokens > (best ? best.input_tokens + best.output_tokens : 0) ? d : best), null);
  const cost = total.calls === 0 ? '$0.00' : usd(total.cost_usd);
  let text = `Token use per day over the last ${days.length} ${days.length === 1 ? 'day' : 'days'}: ` +
    `${count(total.input_tokens)} input and ${count(total.output_tokens)} output tokens in ${count(total.calls)} ` +
    `${total.calls === 1 ? 'call' : 'calls'}, cost: ${cost}.`;
  if (busiest) {
    text += ` Busiest day ${shortDate(busiest.date)} with ${count(busiest.input_tokens + busiest.output_tokens)} tokens.`;
  }
  return text;
}

/**
 * The chart for `usage` (the status route's `usage`: `days` oldest first, today last).
 * @returns {SVGSVGElement}
 */
export function usageChart(usage) {
  const days = usage.days || [];
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const bottom = PAD.top + plotH;
  const topTokens = niceMax(Math.max(0, ...days.map((d) => Math.max(d.input_tokens, d.output_tokens))));
  const priced = hasCost(usage) ? days.filter((d) => d.cost_usd !== null && d.cost_usd !== undefined) : [];
  const topCost = niceMax(Math.max(0, ...priced.map((d) => d.cost_usd)));
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(1, slot * 0.38);

  const root = svg('svg', {
    class: 'usage-chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img',
    'aria-label': summarise(usage), preserveAspectRatio: 'xMidYMid meet',
  });
  root.append(svg('line', { class: 'chart-axis', x1: PAD.left, y1: bottom, x2: WIDTH - PAD.right, y2: bottom }));
  root.append(svg('line', { class: 'chart-grid', x1: PAD.left, y1: PAD.top, x2: WIDTH - PAD.right, y2: PAD.top }));
  root.append(svg('text', { class: 'chart-label', x: PAD.left - 6, y: PAD.top + 4, 'text-anchor': 'end' }, count(topTokens)));
  root.append(svg('text', { class: 'chart-label', x: PAD.left - 6, y: bottom, 'text-anchor': 'end' }, '0'));
  if (priced.length) {
    root.append(svg('text', { class: 'chart-label chart-cost-label', x: WIDTH - PAD.right + 6, y: PAD.top + 4 }, usd(topCost)));
  }

  const bars = svg('g', { class: 'chart-days' });
  const points = [];
  days.forEach((d, i) => {
    const x = PAD.left + i * slot + (slot - 2 * barW) / 2;
    const hIn = (d.input_tokens / topTokens) * plotH;
    const hOut = (d.output_tokens / topTokens) * plotH;
    const g = svg('g', { class: 'chart-day', 'data-date': d.date, 'data-input': d.input_tokens, 'data-output': d.output_tokens });
    g.append(svg('title', {}, `${shortDate(d.date)}: ${count(d.input_tokens)} input, ${count(d.output_tokens)} output tokens, ` +
      `${d.calls === 0 ? '$0.00' : usd(d.cost_usd)}`));
    g.append(svg('rect', { class: 'bar-in', x, y: bottom - hIn, width: barW, height: hIn }));
    g.append(svg('rect', { class: 'bar-out', x: x + barW, y: bottom - hOut, width: barW, height: hOut }));
    bars.append(g);
    if (priced.length && d.cost_usd !== null && d.cost_usd !== undefined) {
      points.push([PAD.left + (i + 0.5) * slot, bottom - (d.cost_usd / topCost) * plotH]);
    }
  });
  root.append(bars);
  if (points.length) {
    const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
    root.append(svg('polyline', { class: 'chart-cost', points: line }));
    for (const [x, y] of points) root.append(svg('circle', { class: 'chart-cost-dot', cx: x, cy: y, r: 2.5 }));
  }
  // Dates under the first, middle and last day (every day's would crowd a 90-day chart).
  const marks = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  for (const i of marks) {
    if (i < 0 || !days[i]) continue;
    root.append(svg('text', { class: 'chart-label', x: PAD.left + (i + 0.5) * slot, y: HEIGHT - 10, 'text-anchor': 'middle' },
      shortDate(days[i].date)));
  }
  return root;
}
