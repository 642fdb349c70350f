// What every browser test file shares: the environment `browser.rs` hands over (the real
// `steward serve`, the fake model's control routes, Chromium, the npm tools, where screenshots
// go), a browser page that fails its test on any script error or Content-Security-Policy
// refusal, signing in through the page, scripting the fake model, screenshots at desktop and
// phone width in light and dark, and axe-core.

import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

function need(name) {
  const v = process.env[name];
  assert.ok(v, `${name} is not set: run these files through the Rust test (cargo test -p steward --test integration browser::)`);
  return v;
}

export const STEWARD = need('STEWARD_URL');
export const TOKEN = need('STEWARD_TOKEN');
/** The model provider's API key the server was given: no page may show it. */
export const PROVIDER_KEY = need('PROVIDER_KEY');
export const FAKE = need('FAKE_URL');
const CHROMIUM = need('CHROMIUM');
const DEPS = need('STEWARD_TEST_BROWSER_DIR');
export const SHOTS = need('SCREENSHOT_DIR');

const { chromium } = await import(pathToFileURL(join(DEPS, 'node_modules/playwright-core/index.mjs')).href);
const AXE = readFileSync(join(DEPS, 'node_modules/axe-core/axe.min.js'), 'utf8');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** One Chromium for a test file; `close()` it in `after`. */
export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/**
 * A fresh context and page. Script errors, CSP refusals and console errors (other than the
 * browser's own "failed to load resource" lines for refused API calls) are collected;
 * `page.problems()` returns them and `page.assertClean()` fails on any.
 */
export async function newPage(browser, { viewport = DESKTOP, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    const text = m.text();
    if (/Content Security Policy|Refused to/i.test(text)) problems.push(`CSP: ${text}`);
    else if (m.type() === 'error' && !/Failed to load resource/.test(text)) problems.push(`console error: ${text}`);
  });
  page.problems = () => problems.slice();
  page.assertClean = () => assert.deepEqual(problems, [], 'the page logged problems');
  page.setDefaultTimeout(10000);
  return page;
}

/** Sign in through the page with the API token; resolves once the chat page shows. */
export async function signIn(page) {
  await page.goto(`${STEWARD}/#/signin`);
  await page.getByLabel('API token').check();
  await page.locator('#secret').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#top').waitFor({ state: 'visible' });
  await page.locator('.page-chat').waitFor();
}

/** Open a new conversation from the list; its id. */
export async function newConversation(page) {
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.locator('#composer').waitFor();
  await page.waitForFunction(() => location.hash.startsWith('#/chat/web-'));
  return page.evaluate(() => location.hash.slice('#/chat/'.length));
}

/** Type `text` into the composer and press Enter. */
export async function send(page, text) {
  await page.locator('#composer').fill(text);
  await page.locator('#composer').press('Enter');
}

/** The last assistant turn on the page. */
export function lastTurn(page) {
  return page.locator('article.msg.assistant').last();
}

/** Wait until the last assistant turn ended (its aria-busy went false). */
export async function turnEnded(page, timeout = 15000) {
  await page.waitForFunction(() => {
    const turns = document.querySelectorAll('article.msg.assistant');
    const last = turns[turns.length - 1];
    return last && last.getAttribute('aria-busy') === 'false';
  }, null, { timeout });
}

// --- the fake model --------------------------------------------------------------------

async function control(method, path, body) {
  const res = await fetch(`${FAKE}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `fake model ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export const fake = {
  reset: () => control('POST', '/_fake/reset'),
  /** Queue steps in their JSON form (steward-testkit's `Step`). */
  steps: (steps) => control('POST', '/_fake/steps', { steps }),
  requests: async () => (await control('GET', '/_fake/requests')).requests,
};

export const reply = (text, more = {}) => ({ reply: { text, ...more } });
export const toolCall = (name, args) => ({ reply: { tool_calls: [{ name, arguments: JSON.stringify(args) }] } });

// --- the API, as another client (curl, the terminal) would use it ------------------------

export async function api(method, path, body) {
  const res = await fetch(`${STEWARD}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// --- pictures and accessibility --------------------------------------------------------

/** Screenshots of the page as it is, at desktop and phone width, light and dark:
 * `SCREENSHOT_DIR/NAME-{desktop,phone}-{light,dark}.png`. Leaves the page at desktop light. */
export async function screenshots(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SHOTS, `${name}-${size}-${scheme}.png`), fullPage: false });
    }
  }
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** axe-core on the page in light and dark: no serious or critical violation. */
export async function assertAccessible(page, name) {
  // Evaluated through the devtools protocol, which the page's CSP does not govern; the page
  // itself still runs no inline script.
  await page.evaluate(AXE);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const report = bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('\n  ')}`);
    assert.deepEqual(report, [], `axe on ${name} (${scheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
