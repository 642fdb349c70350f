// The web inbox: a message Steward sends unasked to a conversation that is not the open one
// marks that conversation "New" in the list (with words for a screen reader) and counts it on
// the Chat link; a page that has that conversation open shows the message live instead and
// marks nothing; the mark survives a reload of the tab and goes once the conversation is
// opened, which shows the message from the stored history.
//
// The delivery is the weekly recap, run now over the API (`POST /api/v1/jobs/weekly_recap/run`
// answers when the run is over), not a reminder waited for on the wall clock (up to two
// minutes of the reminders job's schedule). What makes the recap speak, every time: a pending
// reminder in the coming 7 days — conversation A sets one for "tomorrow at 9", always inside
// the week and never delivered while the tests run (the morning briefing lists only reminders
// due today, which "in 1 minute" is not in the last minute of the day). There are no quiet
// hours and the daily cap is 8 in this server. Where it goes: the home target
// (steward-jobs' jobs/home.rs) — with no Telegram chat (no file before this one opens one),
// the web conversation with the latest message, which is A: its turn is the last one stored.
// A's stored history is checked for it first, so a change there fails here by name.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  api, assertAccessible, fake, launch, newConversation, newPage, reply, screenshots, send, signIn,
  STEWARD, toolCall, turnEnded,
} from './harness.mjs';

const FERNS = 'water the ferns';
/** The recap's first words (the turn that set the reminder shows the ferns too, in its tool call). */
const RECAP = /🗓 Your week/;

let browser;
let page; // this tab looks at another conversation when Steward speaks
let other; // a second browser, open on the conversation Steward speaks in
before(async () => {
  browser = await launch();
  page = await newPage(browser);
  await signedIn(page);
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  page?.assertClean();
  other?.assertClean();
  await browser?.close();
});

/** Sign in and wait until the page's event feed is open (its response headers arrived). */
async function signedIn(p) {
  const feed = p.waitForResponse((r) => r.url() === `${STEWARD}/api/v1/events` && r.status() === 200);
  await signIn(p);
  await feed;
}

const item = (p, id) => p.locator(`li.conv-item[data-id="${id}"]`);
const chatLink = (p) => p.locator('#nav a[data-page="chat"]');

test('a message Steward sends to another conversation marks it until it is opened', async () => {
  // B first, then A: A's turn is the last stored, so A is "home".
  await fake.steps([reply('Noted.')]);
  const b = await newConversation(page);
  await send(page, 'just a note');
  await turnEnded(page);
  await fake.steps([
    toolCall('schedule_reminder', { when: 'tomorrow at 9', text: FERNS }),
    reply('Reminder set for tomorrow at 09:00.'),
  ]);
  const a = await newConversation(page);
  await send(page, 'remind me tomorrow at 9 to water the ferns');
  await turnEnded(page);
  const reminders = await api('GET', '/api/v1/scheduled/reminders');
  assert.equal(reminders.status, 200);
  assert.ok(reminders.body.reminders.some((r) => r.text === FERNS), JSON.stringify(reminders.body));

  // This tab goes back to B; the other browser opens A and waits for its history.
  await page.locator(`a.conv-link[data-id="${b}"]`).click();
  await page.locator('article.msg.user .msg-text', { hasText: 'just a note' }).waitFor();
  other = await newPage(browser);
  await signedIn(other);
  await other.goto(`${STEWARD}/#/chat/${a}`);
  await other.locator('article.msg.user .msg-text', { hasText: 'remind me tomorrow' }).waitFor();
  await other.locator(`a.conv-link[data-id="${a}"]`).waitFor();
  const run = await api('POST', '/api/v1/jobs/weekly_recap/run');
  assert.equal(run.status, 200, JSON.stringify(run.body));
  assert.match(run.body.run.outcome ?? '', /recap delivered/, JSON.stringify(run.body));
  const history = await api('GET', `/api/v1/conversations/${a}?limit=1`);
  assert.equal(history.status, 200);
  assert.match(JSON.stringify(history.body.messages.at(-1)), /Your week.*water the ferns/,
    'the recap went to A (home), not elsewhere');

  // Where A is open, the message arrives live and nothing is marked.
  const live = other.locator('article.msg.assistant', { hasText: RECAP });
  await live.waitFor();
  assert.match(await live.textContent(), /water the ferns/);
  assert.equal(await other.locator('.conv-new').count(), 0, 'no mark where it was open');
  assert.equal(await chatLink(other).locator('.nav-count').isVisible(), false);

  // Here (B open) A is marked, B and every other conversation is not, and the count is 1.
  await item(page, a).locator('.conv-new').waitFor();
  assert.equal(await page.locator('.conv-new').count(), 1, 'one conversation marked');
  assert.equal(await item(page, b).locator('.conv-new').count(), 0);
  const marked = page.locator('nav.conversations').getByRole('link', { name: /new message from Steward/ });
  assert.equal(await marked.count(), 1);
  assert.equal(await marked.getAttribute('data-id'), a);
  await chatLink(page).locator('.nav-count').waitFor();
  assert.equal(await chatLink(page).locator('.nav-count [aria-hidden]').textContent(), '1');
  await page.locator('#nav').getByRole('link', { name: 'Chat (1 conversation with a new message from Steward)' }).waitFor();
  assert.equal(await page.locator('article.msg', { hasText: RECAP }).count(), 0, "not painted into B's thread");

  // A reload of this tab keeps the mark.
  await page.reload();
  await page.locator('article.msg.user .msg-text', { hasText: 'just a note' }).waitFor();
  await item(page, a).locator('.conv-new').waitFor();
  await chatLink(page).locator('.nav-count').waitFor();
  await screenshots(page, 'chat-inbox');
  await assertAccessible(page, 'chat with a conversation marked new');

  // Opening A clears the mark and shows the message from the stored history.
  await page.locator(`a.conv-link[data-id="${a}"]`).click();
  const stored = page.locator('article.msg.assistant', { hasText: RECAP });
  await stored.waitFor();
  assert.match(await stored.textContent(), /water the ferns/);
  assert.equal(await stored.count(), 1);
  await item(page, a).locator('.conv-new').waitFor({ state: 'detached' });
  assert.equal(await page.locator('.conv-new').count(), 0);
  assert.equal(await chatLink(page).locator('.nav-count').isVisible(), false);
  // Cleared for good: the tab's reload does not bring it back.
  await page.reload();
  await page.locator('article.msg.assistant', { hasText: RECAP }).waitFor();
  assert.equal(await page.locator('.conv-new').count(), 0);
});
