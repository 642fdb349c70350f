// The Telegram Mini App (`/miniapp/`) in Chromium against the real `steward serve`: opened
// outside Telegram it asks to be opened from the bot and calls nothing; with initData signed
// by @telegram-apps/init-data-node (the library Mini App developers use) for an allowlisted
// user, the Today tab counts what waits and the Approve tab confirms a card through the same
// handler the web app uses — after the device's biometric check, recorded as decided from
// Telegram; a failed biometric check confirms nothing; initData signed with another token, or
// for a user not on the allowlist, is refused (401) everywhere. Telegram's bridge script is
// answered by a stand-in speaking its documented `Telegram.WebApp` API (no internet here).

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { STEWARD, api, assertAccessible, fake, launch, newPage, reply, screenshots, toolCall } from './harness.mjs';

const BOT_TOKEN = process.env.TG_BOT_TOKEN;
const USER = Number(process.env.TG_USER);
assert.ok(BOT_TOKEN && USER, 'TG_BOT_TOKEN and TG_USER come from browser.rs');
const require = createRequire(join(process.env.STEWARD_TEST_BROWSER_DIR, 'node_modules', 'noop.js'));
const { sign } = require('@telegram-apps/init-data-node');

function initData({ token = BOT_TOKEN, user = USER } = {}) {
  return sign({ user: { id: user, first_name: 'Ann' }, query_id: 'AAHdF6IQAAAAAN0XohDhrOrc' }, token, new Date());
}

/** Telegram's bridge, as its docs describe it: `initData`, `ready`, `BiometricManager`. */
function bridge(data, { biometric = 'passes' } = {}) {
  return `window.__bio = { asked: 0 };
  window.Telegram = { WebApp: {
    initData: ${JSON.stringify(data)}, version: '8.0',
    ready() {}, isVersionAtLeast: () => true,
    BiometricManager: {
      isInited: false, isBiometricAvailable: false, isAccessGranted: false,
      init(cb) { this.isInited = true; this.isBiometricAvailable = ${biometric !== 'absent'}; cb(); },
      requestAccess(params, cb) { this.isAccessGranted = true; cb(true); },
      authenticate(params, cb) { window.__bio.asked++; cb(${biometric === 'passes'}, ''); },
    },
  } };`;
}

let browser;
before(async () => {
  browser = await launch();
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  await browser?.close();
});

async function miniApp(data, options) {
  const page = await newPage(browser, { viewport: { width: 390, height: 844 } });
  const calls = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/')) calls.push({ url: r.url(), auth: r.headers().authorization || '' });
  });
  await page.route('https://telegram.org/js/telegram-web-app.js', (route) =>
    route.fulfill({ contentType: 'text/javascript', body: data === null ? '' : bridge(data, options) }));
  page.calls = calls;
  return page;
}

async function cardFor(conversation, sql) {
  await fake.steps([toolCall('db_execute', { sql }), reply('I need your approval.'), reply('Done.')]);
  const res = await api('POST', '/api/v1/messages', { conversation_id: conversation, text: `please run ${sql}` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.approvals[0];
}

test('outside Telegram the page says where to open it and calls nothing', async () => {
  const page = await miniApp(null);
  await page.goto(`${STEWARD}/miniapp/`);
  await page.getByRole('heading', { name: 'Open this in Telegram' }).waitFor();
  assert.deepEqual(page.calls, []);
  page.assertClean();
  await page.context().close();
});

test('signed by Telegram: Today counts the card, Approve confirms it after the biometric check', async () => {
  const card = await cardFor('miniapp-1', 'CREATE TABLE from_the_mini_app (x TEXT)');
  const page = await miniApp(initData());
  await page.goto(`${STEWARD}/miniapp/`);
  await page.locator('.today-pending').waitFor();
  assert.match(await page.locator('.today-pending').textContent(), /1 action to approve|\d+ actions to approve/);
  assert.ok(page.calls.length > 0 && page.calls.every((c) => c.auth.startsWith('tma ')), JSON.stringify(page.calls));
  await screenshots(page, 'miniapp-today');
  await assertAccessible(page, 'the Mini App Today tab');

  await page.getByRole('link', { name: 'Approve', exact: true }).click();
  const pending = page.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`);
  await pending.waitFor();
  await screenshots(page, 'miniapp-approve');
  await assertAccessible(page, 'the Mini App Approve tab');
  await pending.getByRole('button', { name: 'Confirm' }).click();
  // Decided, it moves to the history, as on the web app's page (the feed, signed too).
  await page.locator(`.history-item[data-action="${card.action_id}"][data-status="executed"]`).waitFor();
  assert.equal(await page.evaluate(() => window.__bio.asked), 1, 'the biometric check ran once');
  const { body } = await api('GET', `/api/v1/approvals/${card.action_id}`);
  assert.equal(body.action.status, 'executed');
  assert.equal(body.decided.surface, 'telegram');
  page.assertClean();
  await page.context().close();
});

test('a failed biometric check confirms nothing; a device without one says so', async () => {
  const card = await cardFor('miniapp-2', 'CREATE TABLE not_without_a_finger (x TEXT)');
  const page = await miniApp(initData(), { biometric: 'fails' });
  await page.goto(`${STEWARD}/miniapp/#/approvals`);
  const pending = page.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`);
  await pending.waitFor();
  await pending.getByRole('button', { name: 'Confirm' }).click();
  await pending.locator('.card-status', { hasText: 'did not pass' }).waitFor();
  const { body } = await api('GET', `/api/v1/approvals/${card.action_id}`);
  assert.equal(body.action.status, 'pending', 'nothing was confirmed');
  await page.context().close();

  const plain = await miniApp(initData(), { biometric: 'absent' });
  await plain.goto(`${STEWARD}/miniapp/#/approvals`);
  const again = plain.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`);
  await again.waitFor();
  // The card says it went ahead without the check (read while it shows, before the feed
  // moves the decided card to the history).
  const said = plain.waitForFunction(
    () => document.body.textContent.includes('without a biometric check: this device has none'),
    null,
    { polling: 'raf' },
  );
  await again.getByRole('button', { name: 'Confirm' }).click();
  await said;
  await plain.locator(`.history-item[data-action="${card.action_id}"][data-status="executed"]`).waitFor();
  const { body: done } = await api('GET', `/api/v1/approvals/${card.action_id}`);
  assert.equal(done.action.status, 'executed');
  plain.assertClean();
  await plain.context().close();
});

test('a card cancelled elsewhere leaves the Approve tab at once (the signed feed)', async () => {
  const card = await cardFor('miniapp-3', 'CREATE TABLE cancelled_elsewhere (x TEXT)');
  const page = await miniApp(initData());
  await page.goto(`${STEWARD}/miniapp/#/approvals`);
  await page.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`).waitFor();
  const res = await api('POST', `/api/v1/approvals/${card.action_id}/cancel`, {});
  assert.equal(res.status, 200);
  await page.locator(`.history-item[data-action="${card.action_id}"][data-status="cancelled"]`).waitFor();
  assert.equal(await page.locator(`.approvals-pending [data-action="${card.action_id}"]`).count(), 0);
  page.assertClean();
  await page.context().close();
});

test('initData signed with another token or for a stranger is refused everywhere', async () => {
  for (const data of [
    initData({ token: '1111:AAAnotTheBotsTokenAtAll_abcdefghijklm' }),
    initData({ user: USER + 1 }),
  ]) {
    const res = await fetch(`${STEWARD}/api/v1/approvals/count`, { headers: { authorization: `tma ${data}` } });
    assert.equal(res.status, 401);
    const body = await res.json();
    assert.equal(body.error.kind, 'unauthorized');
    assert.doesNotMatch(JSON.stringify(body), /hash|expired|allowlist/i, 'the reason stays in the log');
  }
  // Not on the other API families either.
  const good = initData();
  const v1 = await fetch(`${STEWARD}/v1/models`, { headers: { authorization: `tma ${good}` } });
  assert.equal(v1.status, 401);
  const ok = await fetch(`${STEWARD}/api/v1/approvals/count`, { headers: { authorization: `tma ${good}` } });
  assert.equal(ok.status, 200);
});
