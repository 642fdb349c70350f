// What the Status page shows for one `GET /api/v1/status` answer, as elements: Steward itself
// (version, uptime, model and fallback, database size, embedder), each MCP server, the
// recent warnings and errors, and the token use and cost per day (the chart, its numbers in a
// table, and a note of calls without a price). Every value from the server is text (`h`):
// a server name or a logged message holding markup shows that markup.

import { h } from '../dom.js';
import { count, humanBytes, humanDuration, shortDate, usd } from '../format.js';
import { hasCost, usageChart } from './chart.js';

const EMBEDDER = {
  off: 'off (memory search uses full text only)',
  not_loaded: 'not loaded yet (it loads on first use)',
  loaded: 'loaded',
};
const MCP_STATE = { disabled: 'disabled', connecting: 'connecting…', connected: 'connected', down: 'down' };

function facts(rows) {
  return h('dl', { class: 'facts' }, rows.flatMap(([term, value]) =>
    [h('dt', { text: term }), h('dd', {}, value)]));
}

function table(caption, heads, rows, cls) {
  return h('table', { class: `data ${cls || ''}` },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, heads.map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows));
}

function section(id, title, ...body) {
  return h('section', { class: 'status-section', 'aria-labelledby': id },
    h('h2', { id, text: title }), ...body);
}

/** Steward itself. */
export function overview(s) {
  const embedder = EMBEDDER[s.embedder.state] || s.embedder.state;
  return section('status-steward', 'Steward', facts([
    ['Version', String(s.version)],
    ['Running for', humanDuration(s.uptime_secs)],
    ['Model', s.model || 'none set'],
    ['Fallback model', s.fallback_model || 'none'],
    ['Database size', s.database.bytes === null ? 'cannot be measured' : humanBytes(s.database.bytes)],
    ['Embedder', s.embedder.model ? `${embedder} — ${s.embedder.model}` : embedder],
  ]));
}

/** Each configured MCP server. */
export function mcpServers(list) {
  if (!list.length) {
    return section('status-mcp', 'MCP servers', h('p', { class: 'muted', text: 'No MCP server is configured.' }));
  }
  const rows = list.map((m) => h('tr', { 'data-state': m.state },
    h('th', { scope: 'row', class: 'mcp-name', text: m.name }),
    h('td', { class: 'mcp-state', text: MCP_STATE[m.state] || m.state }),
    h('td', { text: count(m.tools) }),
    h('td', { class: 'mcp-error', text: m.last_error || '' })));
  return section('status-mcp', 'MCP servers',
    table('Each MCP server and its state', ['Server', 'State', 'Tools', 'Last error'], rows, 'mcp'));
}

/** The recent warnings and errors, newest first. */
export function recentErrors(list) {
  if (!list.length) {
    return section('status-errors', 'Recent errors', h('p', { class: 'muted', text: 'No warning or error since Steward started.' }));
  }
  const rows = list.slice().reverse().map((e) => h('tr', { 'data-level': e.level },
    h('td', {}, h('time', { datetime: new Date(e.at_secs * 1000).toISOString(),
      text: new Date(e.at_secs * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) })),
    h('td', { class: 'err-level', text: e.level }),
    h('td', { class: 'err-target', text: e.target }),
    h('td', { class: 'err-message', text: e.message })));
  return section('status-errors', 'Recent errors',
    table('Recent warnings and errors, newest first', ['Time', 'Level', 'Where', 'Message'], rows, 'errors'));
}

const dayCost = (d) => (d.calls === 0 ? '$0.00' : usd(d.cost_usd));

/** Token use and cost per day: the chart, then its numbers. */
export function usage(u) {
  const t = u.total;
  const legend = h('ul', { class: 'chart-legend', 'aria-hidden': 'true' },
    h('li', {}, h('span', { class: 'swatch swatch-in' }), 'Input tokens'),
    h('li', {}, h('span', { class: 'swatch swatch-out' }), 'Output tokens'),
    hasCost(u) ? h('li', {}, h('span', { class: 'swatch swatch-cost' }), 'Cost (right scale)') : null);
  const totals = h('p', { class: 'usage-total' },
    `In total: ${count(t.input_tokens)} input and ${count(t.output_tokens)} output tokens in ` +
    `${count(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}, cost: ${t.calls === 0 ? '$0.00' : usd(t.cost_usd)}.`);
  const unpriced = t.unpriced_calls > 0
    ? h('p', { class: 'usage-unpriced' },
      `${count(t.unpriced_calls)} ${t.unpriced_calls === 1 ? 'call has' : 'calls have'} no price, so the cost leaves ` +
      `${t.unpriced_calls === 1 ? 'it' : 'them'} out (set prices in the configuration's price table).`)
    : null;
  const rows = u.days.slice().reverse().map((d) => h('tr', {},
    h('th', { scope: 'row' }, h('time', { datetime: d.date, text: shortDate(d.date) })),
    h('td', { text: count(d.calls) }),
    h('td', { text: count(d.input_tokens) }),
    h('td', { text: count(d.output_tokens) }),
    h('td', { text: dayCost(d) + (d.unpriced_calls > 0 && d.cost_usd !== null ? ` (${d.unpriced_calls} unpriced)` : '') })));
  const byModel = u.by_model.map((m) => h('tr', {},
    h('th', { scope: 'row', text: m.model }),
    h('td', { text: count(m.calls) }),
    h('td', { text: count(m.input_tokens) }),
    h('td', { text: count(m.output_tokens) }),
    h('td', { text: m.calls === 0 ? '$0.00' : usd(m.cost_usd) })));
  return section('status-usage', `Token use and cost, last ${u.days.length} days`,
    h('figure', { class: 'chart' }, usageChart(u), legend),
    totals, unpriced,
    h('p', { class: 'muted', text: `Days are counted in the time zone ${u.timezone}.` }),
    h('details', { class: 'usage-numbers' },
      h('summary', { text: 'The numbers per day' }),
      table('Token use and cost per day, newest first', ['Day', 'Calls', 'Input', 'Output', 'Cost'], rows, 'usage')),
    byModel.length
      ? h('details', { class: 'usage-models' },
        h('summary', { text: 'Per model' }),
        table('Token use and cost per model', ['Model', 'Calls', 'Input', 'Output', 'Cost'], byModel, 'usage'))
      : null);
}
