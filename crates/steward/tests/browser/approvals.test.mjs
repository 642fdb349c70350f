// The Approvals page against the real `steward serve` and the fake model: a pending card
// (raised by a turn another client started) is confirmed from this page and moves to the
// history, decided by the owner from the web app, with its trail; a card cancelled by another
// client moves from pending to history without a reload (the feed); a standing permission is
// revoked; the header badge links here and follows the count. Pictures and axe of the page.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STEWARD, api, assertAccessible, fake, launch, newPage, reply, screenshots, signIn, toolCall,
} from './harness.mjs';

let browser;
let page;
before(async () => {
  browser = await launch();
  page = await newPage(browser);
  page.on('dialog', (d) => {
    d.dismiss();
    throw new Error(`the page opened a browser dialog: ${d.message()}`);
  });
  await signIn(page);
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  page?.assertClean();
  await browser?.close();
});

/** A turn by another client that stops at a card for `sql`; the card. */
async function cardFor(conversation, sql, then = reply('Done, thanks.')) {
  await fake.steps([toolCall('db_execute', { sql }), reply('I need your approval.'), then]);
  const res = await api('POST', '/api/v1/messages', { conversation_id: conversation, text: `please run ${sql}` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.approvals.length, 1);
  return res.body.approvals[0];
}

async function openApprovals() {
  // The same address again would be no navigation at all: read the page afresh instead.
  if ((await page.evaluate(() => location.hash)) === '#/approvals') await page.reload();
  else await page.goto(`${STEWARD}/#/approvals`);
  await page.locator('.page-approvals').waitFor();
  await page.locator('.history-list > li').first().waitFor();
}

test('a pending card is confirmed from the page and moves to the history, decided from the web', async () => {
  const card = await cardFor('approvals-page-1', 'CREATE TABLE approved_here (x TEXT)');
  await page.goto(`${STEWARD}/#/chat`);
  // The badge counts it and links to the page.
  const badge = page.locator('#badge a.badge');
  await page.waitForFunction(() => Number(document.querySelector('#badge .badge')?.dataset.count) >= 1);
  const before = Number(await badge.getAttribute('data-count'));
  const { body: counted } = await api('GET', '/api/v1/approvals/count');
  assert.equal(before, counted.pending);
  await badge.click();
  await page.locator('.page-approvals').waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/approvals');

  const pending = page.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`);
  await pending.waitFor();
  assert.equal(await pending.locator('.tool-name').textContent(), 'db_execute');
  assert.match(await pending.locator('.card-text').textContent(), /CREATE TABLE approved_here/);
  await screenshots(page, 'approvals');
  await assertAccessible(page, 'approvals with a pending card');

  await pending.getByRole('button', { name: 'Confirm' }).click();
  const done = page.locator(`.history-item[data-action="${card.action_id}"]`);
  await done.waitFor();
  assert.equal(await page.locator(`.approvals-pending [data-action="${card.action_id}"]`).count(), 0, 'no longer pending');
  assert.equal(await done.getAttribute('data-status'), 'executed');
  assert.equal(await done.locator('.history-outcome-word').textContent(), 'Approved and done');
  // The API says who and where; the page says the same in words.
  const { body } = await api('GET', `/api/v1/approvals/${card.action_id}`);
  assert.equal(body.decided.surface, 'web');
  assert.equal(body.decided.decision, 'confirm');
  const { body: session } = await api('GET', '/api/v1/session');
  assert.ok(body.decided.by && body.decided.by === session.principal, JSON.stringify([body.decided, session]));
  assert.equal(await done.locator('.decided-surface').getAttribute('data-surface'), 'web');
  assert.equal(await done.locator('.decided-by').textContent(), body.decided.by);
  assert.ok((await done.locator('.decided').textContent()).startsWith(`Approved by ${body.decided.by} from the web app, `));
  // The trail opens on demand, in order.
  await done.locator('summary').click();
  // The list repaints on each approval event (the executed one may come after the confirm's
  // answer); the open trail stays open and is read again, so wait for its whole story.
  await page.waitForFunction((id) => {
    const events = [...document.querySelectorAll(`.history-item[data-action="${id}"] .trail-event`)]
      .map((e) => e.textContent);
    return events[0] === 'created' && events.includes('executed');
  }, card.action_id);
  const steps = await page.locator(`.history-item[data-action="${card.action_id}"] .trail-event`).allTextContents();
  assert.equal(steps[0], 'created');
  assert.ok(steps.includes('confirm') && steps.includes('executed'), `trail: ${steps}`);
  await page.waitForFunction((n) => Number(document.querySelector('#badge .badge')?.dataset.count) === n, before - 1);
  await screenshots(page, 'approvals-history');
  await assertAccessible(page, 'approvals with history and a trail');
});

test('a card cancelled by another client moves to the history at once', async () => {
  const card = await cardFor('approvals-page-2', 'CREATE TABLE cancelled_elsewhere (x TEXT)');
  await openApprovals();
  const pending = page.locator(`.approvals-pending section.card[data-action="${card.action_id}"]`);
  await pending.getByRole('button', { name: 'Cancel' }).waitFor();
  const res = await api('POST', `/api/v1/approvals/${card.action_id}/cancel`, {});
  assert.equal(res.status, 200);
  const moved = page.locator(`.history-item[data-action="${card.action_id}"]`);
  await moved.waitFor({ timeout: 5000 });
  assert.equal(await page.locator(`.approvals-pending [data-action="${card.action_id}"]`).count(), 0);
  assert.equal(await moved.locator('.history-outcome-word').textContent(), 'Cancelled');
  assert.match(await moved.locator('.decided').textContent(), /^Cancelled by \S+ from the API, /);
});

test('a standing permission is listed and revoked', async () => {
  const made = await api('POST', '/api/v1/grants', { conversation_id: 'grant-conv', tool: 'db_execute', hours: 2 });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const id = made.body.grant.id;
  await openApprovals();
  const row = page.locator(`.grant[data-grant="${id}"]`);
  await row.waitFor();
  assert.match(await row.textContent(), /db_execute in grant-conv/);
  await row.getByRole('button', { name: 'Revoke permission for db_execute' }).click();
  await row.waitFor({ state: 'detached' });
  const { body } = await api('GET', '/api/v1/grants');
  assert.equal(body.grants.find((g) => g.id === id).revoked, true);
});
