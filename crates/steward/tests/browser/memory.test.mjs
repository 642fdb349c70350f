// The Memory page against the real `steward serve`: a fact Steward took from a conversation
// (the fake model calls `remember`) is edited on the page and, after a reload, is kept as the
// owner's word (`source = user`); a note is deleted through the in-page confirm (no browser
// dialog), and Keep keeps it; read-later and follow-up rows mark read / done; hostile text in
// a fact, a note and a read-later link renders as text and runs nothing; a cookie request
// from page script without the CSRF header is refused and changes nothing. Pictures and axe.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STEWARD, api, assertAccessible, fake, launch, newPage, reply, screenshots, signIn, toolCall,
} from './harness.mjs';

let browser;
let page;
const dialogs = [];
before(async () => {
  browser = await launch();
  page = await newPage(browser);
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await signIn(page);
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  assert.deepEqual(dialogs, [], 'the page opened a browser dialog');
  page?.assertClean();
  await browser?.close();
});

const HOSTILE = '<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script> plain';

async function open(kind) {
  // The same address again would be no navigation at all: read the page afresh instead.
  const at = await page.evaluate(() => location.hash).catch(() => '');
  if (at === `#/memory/${kind}`) await page.reload();
  else await page.goto(`${STEWARD}/#/memory/${kind}`);
  await page.locator(`.memory-${kind}`).waitFor();
  await page.waitForFunction((k) => {
    const s = document.querySelector(`.memory-${k} .memory-status`);
    return s && s.textContent === '';
  }, kind);
}

async function factOf(key) {
  const { body } = await api('GET', '/api/v1/facts?limit=1000');
  return body.facts.find((f) => f.key === key);
}

test('a fact taken from a conversation is edited on the page and kept as source = user', async () => {
  await fake.steps([toolCall('remember', { key: 'home.city', value: 'Lyon' }), reply('Noted.')]);
  const turn = await api('POST', '/api/v1/messages', { conversation_id: 'memory-page', text: 'I live in Lyon' });
  assert.equal(turn.status, 200, JSON.stringify(turn.body));
  assert.equal((await factOf('home.city')).source, 'extracted');

  await open('facts');
  const row = page.locator('.fact[data-key="home.city"]');
  assert.equal(await row.locator('.fact-value').textContent(), 'Lyon');
  assert.equal(await row.locator('.source').textContent(), 'Source: extracted');
  assert.match(await row.locator('.provenance').textContent(), /memory-page/);
  await row.getByRole('button', { name: 'Edit the fact home.city' }).click();
  await row.getByLabel('New value for home.city').fill('Paris');
  await row.getByRole('button', { name: 'Save' }).click();
  await page.waitForFunction(() => document.querySelector('.fact[data-key="home.city"]')?.dataset.source === 'user');

  await page.reload();
  await page.locator('.fact[data-key="home.city"]').waitFor();
  const kept = page.locator('.fact[data-key="home.city"]');
  assert.equal(await kept.locator('.fact-value').textContent(), 'Paris');
  assert.equal(await kept.locator('.source').textContent(), 'Source: user');
  const stored = await factOf('home.city');
  assert.equal(stored.value, 'Paris');
  assert.equal(stored.source, 'user');

  // The search keeps only what matches.
  assert.equal((await api('PUT', '/api/v1/facts/pet.name', { value: 'Biscuit' })).status, 200);
  await page.reload();
  await page.locator('.fact[data-key="pet.name"]').waitFor();
  await page.getByLabel('Search facts').fill('paris');
  await page.waitForFunction(() => document.querySelectorAll('.memory-facts .fact').length === 1);
  assert.equal(await page.locator('.memory-facts .fact').getAttribute('data-key'), 'home.city');
  await page.getByLabel('Search facts').fill('');
  await screenshots(page, 'memory-facts');
  await assertAccessible(page, 'memory facts');
});

test('a note is deleted through the in-page confirm; Keep keeps it', async () => {
  const made = await api('POST', '/api/v1/notes', { title: 'Packing list', body: 'passport, charger', tags: ['travel'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const other = await api('POST', '/api/v1/notes', { title: 'Recipes', body: 'soup', tags: ['food'] });
  const id = made.body.note.id;
  await open('notes');
  const row = page.locator(`.note[data-id="${id}"]`);
  await row.waitFor();
  // The tag filter asks the server.
  await page.getByLabel('Only the tag').fill('food');
  await page.locator(`.note[data-id="${id}"]`).waitFor({ state: 'detached' });
  await page.locator(`.note[data-id="${other.body.note.id}"]`).waitFor();
  await page.getByLabel('Only the tag').fill('');
  await row.waitFor();

  const del = row.getByRole('button', { name: 'Delete the note Packing list' });
  assert.equal(await del.textContent(), 'Delete', 'the button has words, not a glyph');
  await del.click();
  await row.getByText('Delete the note “Packing list”?').waitFor();
  await screenshots(page, 'memory-notes-confirm');
  await assertAccessible(page, 'memory notes with a confirm step');
  await row.getByRole('button', { name: 'Keep' }).click();
  await del.waitFor();
  assert.ok((await api('GET', '/api/v1/notes')).body.notes.some((n) => n.id === id), 'Keep deleted nothing');

  await del.click();
  await row.getByRole('group', { name: 'Delete the note “Packing list”?' }).getByRole('button', { name: 'Delete' }).click();
  await row.waitFor({ state: 'detached' });
  assert.ok(!(await api('GET', '/api/v1/notes')).body.notes.some((n) => n.id === id), 'the note is gone');
});

test('a note is edited on the page', async () => {
  const made = await api('POST', '/api/v1/notes', { title: 'Draft', body: 'old text', tags: [] });
  const id = made.body.note.id;
  await open('notes');
  const row = page.locator(`.note[data-id="${id}"]`);
  await row.getByRole('button', { name: 'Edit the note Draft' }).click();
  await row.getByLabel('Text').fill('new text');
  await row.getByLabel('Tags (separated by spaces)').fill('work Ideas');
  await row.getByRole('button', { name: 'Save' }).click();
  await page.locator(`.note[data-id="${id}"] .note-body`, { hasText: 'new text' }).waitFor();
  const stored = (await api('GET', '/api/v1/notes')).body.notes.find((n) => n.id === id);
  assert.equal(stored.body, 'new text');
  assert.deepEqual(stored.tags.slice().sort(), ['ideas', 'work']);
});

test('read-later links are marked read and follow-ups show their empty state', async () => {
  await fake.steps([toolCall('read_later', { url: 'https://example.org/article', title: 'An article' }), reply('Kept.')]);
  const turn = await api('POST', '/api/v1/messages', { conversation_id: 'memory-page', text: 'keep this link' });
  assert.equal(turn.status, 200, JSON.stringify(turn.body));
  await open('read-later');
  const row = page.locator('.read-later', { hasText: 'An article' });
  await row.waitFor();
  assert.equal(await row.locator('a').getAttribute('href'), 'https://example.org/article');
  await row.getByRole('button', { name: 'Mark read: An article' }).click();
  await row.waitFor({ state: 'detached' });
  await page.getByLabel('Show the ones already read').check();
  await page.locator('.read-later[data-read="true"]', { hasText: 'An article' }).waitFor();
  await screenshots(page, 'memory-read-later');
  await assertAccessible(page, 'memory read-later');

  await open('learnings');
  assert.match(await page.locator('.memory-learnings .empty').textContent(), /learned nothing/);
  await open('follow-ups');
  assert.match(await page.locator('.memory-follow-ups .empty').textContent(), /No follow-ups/);
  await assertAccessible(page, 'memory follow-ups (empty)');
});

test('hostile text in a fact, a note and a read-later link renders as text and runs nothing', async () => {
  assert.equal((await api('PUT', '/api/v1/facts/evil.value', { value: HOSTILE })).status, 200);
  assert.equal((await api('POST', '/api/v1/notes', { title: HOSTILE, body: HOSTILE, tags: ['evil'] })).status, 201);
  await fake.steps([toolCall('read_later', { url: 'https://example.org/?q=<script>window.__pwned=3</script>', title: HOSTILE }), reply('Kept.')]);
  await api('POST', '/api/v1/messages', { conversation_id: 'memory-hostile', text: 'keep it' });
  for (const kind of ['facts', 'notes', 'read-later']) {
    await open(kind);
    await page.locator(`.memory-${kind} .memory-row`).first().waitFor();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await page.evaluate(() => window.__pwned), undefined, `${kind}: hostile content ran`);
    const made = await page.evaluate(() => document.querySelectorAll('.memory-list img, .memory-list script').length);
    assert.equal(made, 0, `${kind}: markup became elements`);
    const links = await page.evaluate(() => Array.from(document.querySelectorAll('.memory-list a'), (a) => a.getAttribute('href')));
    assert.ok(links.every((h) => h.startsWith('#/') || /^https?:\/\//.test(h)), `${kind} links: ${links}`);
  }
  await open('facts');
  assert.equal(await page.locator('.fact[data-key="evil.value"] .fact-value').textContent(), HOSTILE);
  await open('notes');
  assert.equal(await page.locator('.note .note-title', { hasText: 'plain' }).first().textContent(), HOSTILE);
});

test('a cookie request from page script without the CSRF header is refused and changes nothing', async () => {
  assert.equal((await api('PUT', '/api/v1/facts/csrf.kept', { value: 'before' })).status, 200);
  await open('facts');
  const statuses = await page.evaluate(async () => {
    const out = [];
    for (const [method, path, body] of [
      ['PUT', '/api/v1/facts/csrf.kept', '{"value":"after"}'],
      ['DELETE', '/api/v1/facts/csrf.kept', undefined],
      ['POST', '/api/v1/notes', '{"title":"forged","body":"x"}'],
    ]) {
      const res = await fetch(path, { method, credentials: 'include', headers: { 'content-type': 'application/json' }, body });
      out.push(res.status);
    }
    return out;
  });
  assert.deepEqual(statuses, [403, 403, 403]);
  assert.equal((await factOf('csrf.kept')).value, 'before');
  assert.ok(!(await api('GET', '/api/v1/notes')).body.notes.some((n) => n.title === 'forged'));
  // The page's own requests carry it: the same change from the page's client works.
  const ok = await page.evaluate(async () => {
    const { call } = await import('/app/api.js');
    await call('PUT', '/api/v1/facts/csrf.kept', { body: { value: 'by the page' } });
    return true;
  });
  assert.ok(ok);
  assert.equal((await factOf('csrf.kept')).value, 'by the page');
});
