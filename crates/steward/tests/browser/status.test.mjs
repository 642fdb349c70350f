// The Status page against the real `steward serve`: Steward's own facts (version, uptime,
// model, database size, embedder), the MCP servers and recent errors, and token use per day
// as a chart — one bar group per day, today's bar growing after a turn that reported usage,
// "no price" for the fake model nobody priced. The days selector refetches, and an older
// answer arriving late never paints over the newer one. Hostile server names, models and
// logged messages render as text (the page's painter run on the page itself). Pictures and
// axe of the page.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  api, assertAccessible, fake, launch, newConversation, newPage, reply, screenshots, send,
  signIn, turnEnded,
} from './harness.mjs';

let browser;
let page;
before(async () => {
  browser = await launch();
  page = await newPage(browser);
  await signIn(page);
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  page?.assertClean();
  await browser?.close();
});

async function openStatus() {
  await page.locator('#nav').getByRole('link', { name: 'Status' }).click();
  await page.locator('svg.usage-chart').waitFor();
}

const todayInput = () => page.locator('g.chart-day').last().getAttribute('data-input');

test("the status page shows Steward, the chart with today's usage, and the MCP and embedder fields", async () => {
  await openStatus();
  const before = Number(await todayInput());
  await page.locator('#nav').getByRole('link', { name: 'Chat' }).click();
  await fake.steps([reply('Counted.', { input_tokens: 1234, output_tokens: 567 })]);
  await newConversation(page);
  await send(page, 'use some tokens');
  await turnEnded(page);

  await openStatus();
  const { body } = await api('GET', '/api/v1/status?days=30');
  assert.equal(await page.locator('svg.usage-chart g.chart-day').count(), 30);
  const today = page.locator('g.chart-day').last();
  assert.equal(await today.getAttribute('data-date'), body.usage.days.at(-1).date);
  assert.ok(Number(await today.getAttribute('data-input')) >= before + 1234, 'today counts the turn');
  assert.ok(Number(await today.locator('rect.bar-in').getAttribute('height')) > 0, "today's input bar is drawn");
  assert.ok(Number(await today.locator('rect.bar-out').getAttribute('height')) > 0, "today's output bar is drawn");
  const chart = page.getByRole('img', { name: /Token use per day over the last 30 days/ });
  assert.equal(await chart.count(), 1, 'the chart has a summary in words');
  // Nobody priced the fake model: no price, and the calls it leaves out are said.
  assert.equal(body.usage.total.cost_usd, null);
  assert.match(await page.locator('.usage-total').textContent(), /cost: no price/);
  // Nothing was priced, so no cost line pretends the days were free.
  assert.equal(await page.locator('svg.usage-chart polyline.chart-cost').count(), 0);
  assert.match(await page.locator('.usage-unpriced').textContent(), /no price/);
  await page.locator('.usage-numbers summary').click();
  const firstRow = page.locator('.usage-numbers tbody tr').first();
  assert.match(await firstRow.textContent(), /1,234|no price/);

  const facts = Object.fromEntries(await page.locator('dl.facts').evaluate((dl) =>
    Array.from(dl.querySelectorAll('dt'), (dt) => [dt.textContent, dt.nextElementSibling.textContent])));
  assert.equal(facts.Version, body.version);
  assert.equal(facts.Model, body.model);
  assert.match(facts['Running for'], /second|minute|hour/);
  assert.match(facts['Database size'], /bytes|KB|MB/);
  assert.match(facts.Embedder, { off: /^off/, not_loaded: /^not loaded/, loaded: /^loaded/ }[body.embedder.state]);
  const mcp = page.locator('section[aria-labelledby=status-mcp]');
  assert.equal(await page.locator('#status-mcp').textContent(), 'MCP servers');
  assert.equal(await mcp.locator('tbody tr').count(), body.mcp.length);
  await page.locator('#status-errors').waitFor();

  await page.locator('.usage-numbers summary').click();
  await page.evaluate(() => { for (const el of [document.getElementById('main'), document.querySelector('.page-status')]) el.scrollTo(0, 0); });
  await screenshots(page, 'status');
  await assertAccessible(page, 'status');
});

test('the days selector refetches, and a late answer never paints over a newer one', async () => {
  await openStatus();
  await page.locator('#status-days').selectOption('7');
  await page.waitForFunction(() => document.querySelectorAll('g.chart-day').length === 7);
  await page.locator('#status-days').selectOption('90');
  await page.waitForFunction(() => document.querySelectorAll('g.chart-day').length === 90);

  // The 7-day answer is held back; the 30-day one asked after it arrives first.
  let held = 0;
  await page.route('**/api/v1/status?days=7', async (route) => {
    held += 1;
    await new Promise((r) => setTimeout(r, 800));
    try {
      await route.continue();
    } catch {
      // The page gave up on it (aborted): that is allowed too.
    }
  });
  await page.locator('#status-days').selectOption('7');
  await page.locator('#status-days').selectOption('30');
  await page.waitForFunction(() => document.querySelectorAll('g.chart-day').length === 30);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(held, 1, 'the 7-day request was made');
  assert.equal(await page.locator('g.chart-day').count(), 30, 'the older answer painted over the newer');
  assert.equal(await page.locator('.status-content').getAttribute('data-days'), '30');
  await page.unroute('**/api/v1/status?days=7');
});

test('hostile server names, models, errors and dates render as text', async () => {
  await openStatus();
  const evil = (n) => `<img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n + 1}</script>`;
  const status = {
    version: evil(1),
    uptime_secs: 93784,
    model: `openai:${evil(3)}`,
    fallback_model: evil(5),
    database: { bytes: 1536 },
    embedder: { state: 'loaded', model: evil(7) },
    mcp: [{ name: evil(9), state: 'down', tools: 0, last_error: evil(11) },
      { name: 'ok-server', state: evil(13), tools: 3, last_error: null }],
    recent_errors: [{ at_secs: 1764633600, level: evil(15), target: evil(17), message: evil(19) }],
    usage: {
      timezone: evil(21),
      days: [{ date: evil(23), calls: 1, input_tokens: 5, output_tokens: 6, cost_usd: null, unpriced_calls: 1 }],
      by_model: [{ model: evil(25), calls: 1, input_tokens: 5, output_tokens: 6, cost_usd: null, unpriced_calls: 1 }],
      total: { calls: 1, input_tokens: 5, output_tokens: 6, cost_usd: null, unpriced_calls: 1 },
    },
  };
  const out = await page.evaluate(async (s) => {
    const paint = await import('/app/status/paint.js');
    const box = document.createElement('div');
    box.append(paint.overview(s), paint.usage(s.usage), paint.mcpServers(s.mcp), paint.recentErrors(s.recent_errors));
    document.body.append(box);
    for (const d of box.querySelectorAll('details')) d.open = true;
    await new Promise((r) => setTimeout(r, 300));
    const bad = Array.from(box.querySelectorAll('img, script, iframe, object, embed'), (e) => e.tagName);
    const text = box.textContent;
    box.remove();
    return { bad, text, pwned: window.__pwned };
  }, status);
  assert.equal(out.pwned, undefined, 'hostile text ran');
  assert.deepEqual(out.bad, [], 'hostile text became elements');
  for (const n of [1, 3, 5, 7, 9, 11, 15, 17, 19, 25]) {
    assert.ok(out.text.includes(evil(n)), `evil(${n}) is not shown as text`);
  }
  assert.ok(out.text.includes('1 day 2 hours'), out.text);
  assert.ok(out.text.includes('1.5 KB'));
});

test('the format helpers read as a person reads', async () => {
  const f = await import('../../../steward-server/web/app/format.js');
  assert.equal(f.humanBytes(0), '0 bytes');
  assert.equal(f.humanBytes(1), '1 byte');
  assert.equal(f.humanBytes(1536), '1.5 KB');
  assert.equal(f.humanBytes(5 * 1024 * 1024 * 1024), '5.0 GB');
  assert.equal(f.humanBytes(null), 'unknown');
  assert.equal(f.humanDuration(0), '0 seconds');
  assert.equal(f.humanDuration(61), '1 minute 1 second');
  assert.equal(f.humanDuration(3 * 86400 + 7200 + 5), '3 days 2 hours');
  assert.equal(f.usd(null), 'no price');
  assert.equal(f.usd(0.0042), '$0.0042');
  assert.equal(f.usd(12.5), '$12.50');
  assert.equal(f.shortDate('2026-12-02'), 'Dec 2');
  assert.equal(f.count(1234567), '1,234,567');
});

test('a priced window draws the cost line, bars to scale, and says it in words', async () => {
  await openStatus();
  const usage = {
    timezone: 'UTC',
    days: [
      { date: '2026-12-01', calls: 2, input_tokens: 1000, output_tokens: 500, cost_usd: 0.25, unpriced_calls: 0 },
      { date: '2026-12-02', calls: 1, input_tokens: 2000, output_tokens: 0, cost_usd: 0.5, unpriced_calls: 0 },
      { date: '2026-12-03', calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, unpriced_calls: 0 },
    ],
    by_model: [],
    total: { calls: 3, input_tokens: 3000, output_tokens: 500, cost_usd: 0.75, unpriced_calls: 0 },
  };
  const out = await page.evaluate(async (u) => {
    const { usageChart } = await import('/app/status/chart.js');
    const svg = usageChart(u);
    const heights = Array.from(svg.querySelectorAll('g.chart-day'), (g) =>
      [Number(g.querySelector('.bar-in').getAttribute('height')), Number(g.querySelector('.bar-out').getAttribute('height'))]);
    return {
      ns: svg.namespaceURI,
      label: svg.getAttribute('aria-label'),
      role: svg.getAttribute('role'),
      points: svg.querySelector('polyline.chart-cost')?.getAttribute('points').split(' ').length,
      heights,
    };
  }, usage);
  assert.equal(out.ns, 'http://www.w3.org/2000/svg');
  assert.equal(out.role, 'img');
  assert.equal(out.label, 'Token use per day over the last 3 days: 3,000 input and 500 output tokens in 3 calls, cost: $0.75. Busiest day Dec 2 with 2,000 tokens.');
  assert.equal(out.points, 3);
  const [[in1, out1], [in2, out2], [in3, out3]] = out.heights;
  assert.ok(in2 > 0 && Math.abs(in1 * 2 - in2) < 0.01, 'input bars to one scale');
  assert.ok(Math.abs(out1 * 2 - in1) < 0.01, 'output bars on the same scale');
  assert.deepEqual([out2, in3, out3], [0, 0, 0]);
});
