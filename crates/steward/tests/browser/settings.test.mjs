// The Settings page against the real `steward serve`: each runtime setting shows with its
// rule and source; a time zone saved here is the one the next turn's context names (the
// fake model's recorded request) and Reset puts the file's back; a refused value shows the
// server's own sentence and changes nothing; the environment's model is locked and says by
// what. The signed-in browsers: revoking another one refuses it on its next request,
// revoking this one lands on the sign-in page. No secret is anywhere in the page.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PROVIDER_KEY, TOKEN, api, assertAccessible, fake, launch, newConversation, newPage, reply,
  screenshots, send, signIn, turnEnded,
} from './harness.mjs';

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

async function openSettings(page) {
  await page.locator('#nav').getByRole('link', { name: 'Settings' }).click();
  await page.locator('form.setting[data-key="timezone"]').waitFor();
  await page.locator('li.session').first().waitFor();
}

const field = (page, key) => page.locator(`form.setting[data-key="${key}"]`);

async function setting(key) {
  const { status, body } = await api('GET', '/api/v1/settings');
  assert.equal(status, 200);
  return body.settings.find((s) => s.key === key);
}

function lastUserText(requests) {
  const body = requests.at(-1).body;
  const users = body.messages.filter((m) => m.role === 'user');
  const content = users.at(-1).content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

test('every runtime setting shows, the page holds no secret, and it is accessible', async () => {
  const page = await newPage(browser);
  await signIn(page);
  await openSettings(page);
  const { body } = await api('GET', '/api/v1/settings');
  const keys = await page.locator('form.setting').evaluateAll((forms) => forms.map((f) => f.dataset.key));
  assert.deepEqual(keys, body.settings.map((s) => s.key));
  for (const s of body.settings) {
    const form = field(page, s.key);
    assert.equal((await form.locator('.setting-help').textContent()), s.help);
    assert.ok((await form.locator('.setting-rule').textContent()).includes(s.rule));
    const type = await form.locator('input').first().getAttribute('type');
    assert.equal(type, { integer: 'number', boolean: 'checkbox' }[s.kind] || 'text', s.key);
    if (s.kind === 'integer') {
      assert.equal(await form.locator('input').getAttribute('min'), String(s.min));
      assert.equal(await form.locator('input').getAttribute('max'), String(s.max));
    }
  }
  // The environment fixes the model (the test server is started with STEWARD_MODEL).
  const model = await setting('model');
  assert.equal(model.locked_by, 'STEWARD_MODEL');
  assert.equal(await field(page, 'model').locator('input').isDisabled(), true);
  assert.match(await field(page, 'model').locator('.setting-locked').textContent(), /environment variable STEWARD_MODEL/);
  assert.equal(await field(page, 'model').getByRole('button', { name: 'Save' }).isDisabled(), true);
  assert.equal(await field(page, 'timezone').locator('datalist option[value="Europe/Berlin"]').count(), 1);
  // This browser is marked among the sessions.
  assert.equal(await page.locator('li.session[data-current=true] .session-current').count(), 1);

  const html = await page.content();
  assert.ok(!html.includes(TOKEN), 'the API token is in the page');
  assert.ok(!html.includes(PROVIDER_KEY), 'the provider key is in the page');
  await screenshots(page, 'settings');
  await assertAccessible(page, 'settings');
  page.assertClean();
  await page.context().close();
});

test('a time zone saved on the page is the one the next turn uses, and Reset puts the old one back', async () => {
  const page = await newPage(browser);
  await signIn(page);
  const before = await setting('timezone');
  assert.notEqual(before.value, 'Europe/Berlin');
  await openSettings(page);
  const form = field(page, 'timezone');
  await form.locator('input').fill('Europe/Berlin');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.locator('.setting-note', { hasText: 'Saved' }).waitFor();
  assert.match(await field(page, 'timezone').locator('.setting-source').textContent(), /set here/);
  assert.equal((await setting('timezone')).value, 'Europe/Berlin');

  await fake.steps([reply('It is later in Berlin.')]);
  await page.locator('#nav').getByRole('link', { name: 'Chat' }).click();
  await newConversation(page);
  await send(page, 'what time is it?');
  await turnEnded(page);
  assert.match(lastUserText(await fake.requests()), /time zone: Europe\/Berlin/);

  await openSettings(page);
  await field(page, 'timezone').getByRole('button', { name: 'Reset' }).click();
  await field(page, 'timezone').locator('.setting-note', { hasText: 'Reset' }).waitFor();
  const after = await setting('timezone');
  assert.equal(after.value, before.value);
  assert.notEqual(after.source, 'app');
  assert.equal(await field(page, 'timezone').getByRole('button', { name: 'Reset' }).count(), 0);
  await fake.reset();
  await fake.steps([reply('Back home.')]);
  await page.locator('#nav').getByRole('link', { name: 'Chat' }).click();
  await newConversation(page);
  await send(page, 'and now?');
  await turnEnded(page);
  assert.ok(!lastUserText(await fake.requests()).includes('Europe/Berlin'), 'the reset zone is still used');
  page.assertClean();
  await page.context().close();
});

test("a refused value shows the server's sentence and changes nothing", async () => {
  const page = await newPage(browser);
  await signIn(page);
  await openSettings(page);
  const before = await setting('timezone');
  const form = field(page, 'timezone');
  await form.locator('input').fill('Mars/Olympus_Mons');
  await form.getByRole('button', { name: 'Save' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  // The same sentence the API gives any client.
  const direct = await api('PUT', '/api/v1/settings/timezone', { value: 'Mars/Olympus_Mons' });
  assert.equal(direct.status, 422);
  assert.equal(await alert.textContent(), direct.body.error.message);
  assert.deepEqual(await setting('timezone'), before);

  // A number past the registry's bound: the server's sentence too (the browser's own range
  // check does not stop the form: the server's rule is the one rule).
  const { body } = await api('GET', '/api/v1/settings');
  const int = body.settings.find((s) => s.kind === 'integer' && !s.locked_by);
  assert.ok(int, 'an integer setting to try');
  const intForm = field(page, int.key);
  await intForm.locator('input').fill(String(int.max + 1));
  await intForm.getByRole('button', { name: 'Save' }).click();
  const intAlert = intForm.getByRole('alert');
  await intAlert.waitFor();
  assert.match(await intAlert.textContent(), new RegExp(`invalid value for \`${int.key.replace('.', '\\.')}\``));
  assert.deepEqual(await setting(int.key), int);
  assert.equal(await page.locator('.setting-note:not(:empty)').count(), 0, 'nothing said it was saved');
  page.assertClean();
  await page.context().close();
});

test('revoking another browser refuses it on its next request; this one stays signed in', async () => {
  const a = await newPage(browser);
  const b = await newPage(browser);
  await signIn(a);
  await signIn(b);
  const bId = await b.evaluate(async () => (await (await fetch('/api/v1/session')).json()).session.id);
  await openSettings(a);
  const row = a.locator(`li.session[data-id="${bId}"]`);
  await row.waitFor();
  assert.equal(await row.getAttribute('data-current'), 'false');
  await row.getByRole('button', { name: /Revoke/ }).click();
  await a.locator('.sessions-section [role=status]', { hasText: 'Revoked' }).waitFor();
  await row.waitFor({ state: 'detached' });

  // B's next request is refused, and its page shows the sign-in.
  await b.locator('#nav').getByRole('link', { name: 'Status' }).click();
  await b.locator('#secret').waitFor();
  assert.equal(await b.evaluate(async () => (await fetch('/api/v1/conversations')).status), 401);
  // A is unaffected.
  assert.equal(await a.evaluate(async () => (await fetch('/api/v1/conversations')).status), 200);
  a.assertClean();
  b.assertClean();
  await a.context().close();
  await b.context().close();
});

test('revoking this browser lands on the sign-in page', async () => {
  const page = await newPage(browser);
  await signIn(page);
  await openSettings(page);
  await page.locator('li.session[data-current=true]').getByRole('button', { name: /Revoke/ }).click();
  await page.locator('#secret').waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/signin');
  assert.equal(await page.evaluate(async () => (await fetch('/api/v1/settings')).status), 401);
  page.assertClean();
  await page.context().close();
});

test('Sign out on the Settings page signs this browser out', async () => {
  const page = await newPage(browser);
  await signIn(page);
  await openSettings(page);
  await page.getByRole('button', { name: 'Sign out of this browser' }).click();
  await page.locator('#secret').waitFor();
  assert.equal(await page.getByRole('status').first().textContent(), 'You are signed out.');
  assert.equal(await page.evaluate(async () => (await fetch('/api/v1/settings')).status), 401);
  page.assertClean();
  await page.context().close();
});
