// The chat page against the real `steward serve` and the fake model: an answer streams in
// (text on screen before the turn ends), the history is back after a reload, Stop ends a slow
// turn, an approval card is confirmed and the tool's result and the agent's follow-up show,
// conversations are renamed and deleted; pictures and axe of the page with all of that on it.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertAccessible, fake, lastTurn, launch, newConversation, newPage, reply, screenshots, send,
  signIn, toolCall, turnEnded,
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

const SLOW_ANSWER = 'Streaming words arrive one piece at a time, **well before** the end of the turn.';

test('an answer streams in: text is on the page before the turn ends', async () => {
  await fake.steps([reply(SLOW_ANSWER, { chunk_chars: 4, chunk_delay_ms: 60 })]);
  const id = await newConversation(page);
  const pressed = Date.now();
  await send(page, 'tell me something');
  await page.locator('article.msg.user').last().getByText('tell me something').waitFor();
  // Some of the answer is painted while the turn is still running.
  await page.waitForFunction(() => {
    const turns = document.querySelectorAll('article.msg.assistant');
    const last = turns[turns.length - 1];
    return last && last.getAttribute('aria-busy') === 'true' &&
      last.querySelector('.turn-text').textContent.startsWith('Stream');
  });
  const firstText = Date.now() - pressed;
  const partial = (await lastTurn(page).locator('.turn-text').textContent()).trim();
  assert.ok(partial.length < 'Streaming words arrive one piece at a time, well before the end of the turn.'.length,
    `the whole answer was already there: ${partial}`);
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'visible' });
  await turnEnded(page);
  const turn = lastTurn(page);
  assert.equal((await turn.locator('.turn-text').textContent()).trim(),
    'Streaming words arrive one piece at a time, well before the end of the turn.');
  assert.equal(await turn.locator('.turn-text strong').textContent(), 'well before', 'markdown rendered');
  assert.equal(await page.getByRole('button', { name: 'Stop' }).isVisible(), false);
  console.log(`first streamed text painted ${firstText} ms after Enter (60 ms pacing per piece)`);

  const [request] = await fake.requests();
  assert.equal(request.streaming, true, 'Steward streamed from the model');
  assert.ok(JSON.stringify(request.body).includes('tell me something'));
  // The new conversation is in the list.
  await page.locator(`a.conv-link[data-id="${id}"]`).waitFor();
});

test('the history is back after a reload', async () => {
  await fake.steps([reply('First answer, kept.')]);
  const id = await newConversation(page);
  await send(page, 'remember this exchange');
  await turnEnded(page);
  await page.reload();
  await page.locator('article.msg.user').first().waitFor();
  assert.equal(await page.evaluate(() => location.hash), `#/chat/${id}`);
  assert.equal(await page.locator('article.msg.user .msg-text').textContent(), 'remember this exchange');
  assert.equal((await page.locator('article.msg.assistant .turn-text').textContent()).trim(), 'First answer, kept.');
});

test('Stop ends a slow turn', async () => {
  const long = 'slow '.repeat(200);
  await fake.steps([reply(long, { chunk_chars: 2, chunk_delay_ms: 150 })]);
  await newConversation(page);
  await send(page, 'take your time');
  await page.waitForFunction(() => {
    const turns = document.querySelectorAll('article.msg.assistant');
    return turns.length && turns[turns.length - 1].querySelector('.turn-text').textContent.length > 0;
  });
  const stop = page.getByRole('button', { name: 'Stop' });
  const pressed = Date.now();
  await stop.click();
  await turnEnded(page, 5000);
  assert.ok(Date.now() - pressed < 5000);
  const turn = lastTurn(page);
  assert.equal(await turn.locator('.turn-end').textContent(), 'Stopped.');
  assert.equal(await turn.getAttribute('data-end'), 'cancelled');
  assert.ok((await turn.locator('.turn-text').textContent()).length < long.length, 'cut short');
  await stop.waitFor({ state: 'hidden' });
  // The conversation takes the next message at once.
  await fake.steps([reply('Back again.')]);
  await send(page, 'are you there?');
  await turnEnded(page);
  assert.equal((await lastTurn(page).locator('.turn-text').textContent()).trim(), 'Back again.');
});

test('confirming a card runs the tool and the agent follows up', async () => {
  await fake.steps([
    toolCall('db_execute', { sql: 'CREATE TABLE visits (place TEXT)' }),
    reply('I need your approval to create the table.'),
    reply('The visits table is ready.'),
  ]);
  await newConversation(page);
  await send(page, 'make a visits table');
  const card = page.locator('section.card');
  await card.waitFor();
  assert.equal(await card.locator('.tool-name').textContent(), 'db_execute');
  assert.match(await card.locator('.card-text').textContent(), /CREATE TABLE visits/);
  await turnEnded(page);
  assert.equal((await lastTurn(page).locator('.turn-text').textContent()).trim(), 'I need your approval to create the table.');
  // The badge counts it.
  await page.waitForFunction(() => document.querySelector('#badge .badge')?.dataset.count === '1');
  await screenshots(page, 'chat-card');
  await assertAccessible(page, 'chat with a card');

  await card.getByRole('button', { name: 'Confirm' }).click();
  await card.getByText('Approved and done.').waitFor();
  assert.equal(await card.getByRole('button', { name: 'Confirm' }).count(), 0, 'no buttons once decided');
  await card.locator('.card-outcome pre').waitFor();
  // The follow-up turn arrives on the feed and is painted once.
  await page.getByText('The visits table is ready.').waitFor();
  await turnEnded(page);
  assert.equal(await page.getByText('The visits table is ready.').count(), 1);
  await page.waitForFunction(() => document.querySelector('#badge .badge')?.dataset.count === '0');
  // What the model was sent for the follow-up says the action ran.
  const requests = await fake.requests();
  assert.ok(JSON.stringify(requests.at(-1).body).includes('action_result'), 'the follow-up carries the result');
  // After a reload the card's effect is in the history; Steward's note to itself is not shown
  // as the owner's words.
  await page.reload();
  await page.locator('article.msg.user').first().waitFor();
  const said = await page.locator('article.msg.user .msg-text').allTextContents();
  assert.deepEqual(said, ['make a visits table']);
  assert.equal(await page.locator('details.msg.note').count(), 1);
  await page.getByText('The visits table is ready.').waitFor();
});

test('conversations are renamed and deleted from the list', async () => {
  await fake.steps([reply('one'), reply('two')]);
  const first = await newConversation(page);
  await send(page, 'first');
  await turnEnded(page);
  const second = await newConversation(page);
  await send(page, 'second');
  await turnEnded(page);

  const item = page.locator(`li.conv-item[data-id="${first}"]`);
  await item.waitFor();
  await item.getByRole('button', { name: /^Rename/ }).click();
  await page.getByLabel('New title').fill('Trip <b>plans</b>');
  await page.getByRole('button', { name: 'Save' }).click();
  await item.locator('.conv-title', { hasText: 'Trip <b>plans</b>' }).waitFor();
  assert.equal(await item.locator('b').count(), 0, 'the title is text');

  const other = page.locator(`li.conv-item[data-id="${second}"]`);
  await other.getByRole('button', { name: /^Delete/ }).click();
  await other.getByRole('button', { name: 'Keep it' }).click();
  await other.getByRole('button', { name: /^Delete/ }).click();
  await other.getByRole('button', { name: 'Delete', exact: true }).click();
  await other.waitFor({ state: 'detached' });
  // It was the open one: the page goes back to the list.
  await page.waitForFunction(() => location.hash === '#/chat');
  await screenshots(page, 'chat-list');
  await assertAccessible(page, 'chat list');
  await page.goto(page.url().replace(/#.*$/, `#/chat/${first}`));
  await page.locator('.thread-title', { hasText: 'Trip <b>plans</b>' }).waitFor();
  await screenshots(page, 'chat-thread');
  await assertAccessible(page, 'chat thread');
});
