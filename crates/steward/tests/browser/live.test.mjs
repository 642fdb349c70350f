// What happens elsewhere shows on the open page through the event feed: a turn another client
// starts in this conversation streams in (with its question), its card appears with its buttons, and when that
// client confirms the card the page's copy loses its buttons at once and shows how it ended.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, fake, launch, newConversation, newPage, reply, signIn, toolCall, turnEnded } from './harness.mjs';

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

test('a turn started by another client streams into the open page', async () => {
  const id = await newConversation(page);
  // The feed is connected before anything is sent elsewhere.
  await page.waitForFunction(() => document.querySelector('#badge .badge') !== null);
  await fake.steps([reply('Answer for the other client, streamed slowly.', { chunk_chars: 5, chunk_delay_ms: 60 })]);
  const elsewhere = api('POST', '/api/v1/messages', { conversation_id: id, text: 'asked from curl' });
  await page.waitForFunction(() => {
    const t = document.querySelector('article.msg.assistant');
    return t && t.getAttribute('aria-busy') === 'true' && t.querySelector('.turn-text').textContent.length > 0;
  });
  const res = await elsewhere;
  assert.equal(res.status, 200);
  await turnEnded(page);
  assert.equal((await page.locator('article.msg.assistant .turn-text').textContent()).trim(),
    'Answer for the other client, streamed slowly.');
  assert.equal(await page.locator('article.msg.assistant').count(), 1, 'painted once');
  // The feed carries the answer; the question comes from the stored history, above it.
  await page.locator('article.msg.user .msg-text', { hasText: 'asked from curl' }).waitFor();
  assert.equal(await page.locator('article.msg.user').count(), 1);
});

test('a card confirmed elsewhere loses its buttons here at once', async () => {
  const id = await newConversation(page);
  await page.waitForFunction(() => document.querySelector('#badge .badge') !== null);
  await fake.steps([
    toolCall('db_execute', { sql: 'CREATE TABLE places (name TEXT)' }),
    reply('Please approve the table.'),
    // The follow-up is slow, so the other client's confirm is still waiting on it while the
    // page must already have taken the buttons away.
    { delay: { ms: 2500, then: reply('Done elsewhere.') } },
  ]);
  const res = await api('POST', '/api/v1/messages', { conversation_id: id, text: 'make places' });
  assert.equal(res.status, 200);
  const card = res.body.approvals[0];
  const shown = page.locator(`section.card[data-action="${card.action_id}"]`);
  await shown.getByRole('button', { name: 'Confirm' }).waitFor();
  let answered = false;
  const confirming = api('POST', `/api/v1/approvals/${card.action_id}/confirm`, { revision: card.revision })
    .then((r) => {
      answered = true;
      return r;
    });
  await shown.locator('.card-actions').waitFor({ state: 'detached', timeout: 2000 });
  assert.equal(answered, false, 'the buttons went before the other client had its answer');
  await shown.getByText('Approved and done.').waitFor();
  assert.equal((await confirming).status, 200);
  await page.getByText('Done elsewhere.').waitFor();
});
