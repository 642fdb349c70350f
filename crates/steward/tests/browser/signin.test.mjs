// Signing in and out through the page: the sign-in page (pictures, axe), a wrong token
// refused in words, the first load's weight, signing in with the API token, signing out — and
// being refused afterwards, by the page and by the API with the old cookie.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  STEWARD, SHOTS, assertAccessible, launch, newPage, screenshots, signIn,
} from './harness.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Bytes on the wire (compressed bodies plus headers) of everything the first visit loads. */
async function firstLoadBytes(page) {
  const sizes = [];
  page.on('requestfinished', async (req) => {
    const s = await req.sizes();
    sizes.push({ url: req.url(), body: s.responseBodySize, headers: s.responseHeadersSize });
  });
  await page.goto(`${STEWARD}/`, { waitUntil: 'networkidle' });
  await page.locator('#secret').waitFor();
  const total = sizes.reduce((n, s) => n + s.body + s.headers, 0);
  return { total, files: sizes };
}

test('the sign-in page loads light, accessible and small', async () => {
  const page = await newPage(browser);
  const weight = await firstLoadBytes(page);
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(join(SHOTS, 'page-weight.json'), JSON.stringify(weight, null, 2));
  console.log(`first load: ${weight.total} bytes over ${weight.files.length} requests`);
  assert.ok(weight.files.some((f) => f.url.endsWith('/app/main.js')), 'main.js was loaded');
  assert.ok(weight.total <= 150 * 1024, `first load ${weight.total} bytes > 150 KB`);
  assert.ok(weight.files.every((f) => f.url.startsWith(STEWARD)), 'nothing from elsewhere');
  await assert.doesNotReject(page.getByRole('heading', { name: 'Sign in to Steward' }).waitFor());
  await screenshots(page, 'signin');
  await assertAccessible(page, 'sign-in');
  page.assertClean();
  await page.context().close();
});

test('a wrong token is refused in words and nothing opens', async () => {
  const page = await newPage(browser);
  await page.goto(`${STEWARD}/#/chat`);
  // A page that needs sign-in sends a signed-out visitor to the sign-in page.
  await page.locator('#secret').waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/signin');
  await page.getByLabel('API token').check();
  await page.locator('#secret').fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.equal(await alert.textContent(), 'That password or token is not right.');
  assert.equal(await page.locator('#top').isVisible(), false);
  page.assertClean();
  await page.context().close();
});

test('sign in, sign out, and be refused after', async () => {
  const page = await newPage(browser);
  await signIn(page);
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'steward_session');
  assert.ok(session, 'the session cookie was set');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  // The page itself reaches the API with it.
  assert.equal(await page.evaluate(async () => (await fetch('/api/v1/conversations')).status), 200);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.locator('#secret').waitFor();
  assert.equal(await page.locator('#top').isVisible(), false);
  assert.equal(await page.getByRole('status').first().textContent(), 'You are signed out.');
  assert.equal(await page.evaluate(async () => (await fetch('/api/v1/conversations')).status), 401);
  // The old cookie, presented again by hand, is refused too.
  const res = await fetch(`${STEWARD}/api/v1/conversations`, { headers: { cookie: `steward_session=${session.value}` } });
  assert.equal(res.status, 401);
  // A reload stays signed out.
  await page.reload();
  await page.locator('#secret').waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/signin');
  page.assertClean();
  await page.context().close();
});
