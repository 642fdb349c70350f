// Hostile content renders as text and runs nothing: the owner's message, the model's answer
// (raw HTML, a javascript: link, remote and data images), a tool's result and a tool name the
// model made up, each holding markup and script. A canary global that any of them would set
// stays unset, no <img>, <script> or <iframe> appears in the conversation, nothing is
// requested from elsewhere, and the same holds after a reload (the history's own painter).

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { STEWARD, fake, launch, newConversation, newPage, reply, send, signIn, turnEnded } from './harness.mjs';

let browser;
let page;
const requested = [];
before(async () => {
  browser = await launch();
  page = await newPage(browser);
  page.on('request', (r) => requested.push(r.url()));
  await signIn(page);
});
beforeEach(async () => {
  await fake.reset();
});
after(async () => {
  page?.assertClean();
  await browser?.close();
});

const canary = (n) => `window.__pwned=${n}`;
const MESSAGE = `<img src=x onerror="${canary(1)}"><script>${canary(2)}</script> hello <b>bold</b>`;
const ANSWER = [
  `Raw: <img src=x onerror="${canary(3)}"> <script>${canary(4)}</script>`,
  `<iframe src="javascript:${canary(5)}"></iframe>`,
  `[click me](javascript:${canary(6)}) and [fine](https://example.org/)`,
  '![remote](http://127.0.0.1:9/evil.png) ![inline](data:image/png;base64,iVBORw0KGgo=)',
  '<a href="#" onclick="window.__pwned=7">x</a> <svg onload="window.__pwned=8"></svg>',
  '```html\n<script>window.__pwned=9</script>\n```',
].join('\n\n');
const TOOL_RESULT_SQL = `SELECT '<img src=x onerror="${canary(10)}">' AS evil`;
const TOOL_NAME = `evil__<img src=x onerror="${canary(11)}">`;

async function assertInert() {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'hostile content ran');
  const found = await page.evaluate(() =>
    ['img', 'script', 'iframe', 'svg', 'object', 'embed', 'form', 'style'].flatMap((t) =>
      Array.from(document.querySelectorAll(`.messages ${t}`), () => t)));
  assert.deepEqual(found, [], 'markup from the conversation became elements');
  const links = await page.evaluate(() => Array.from(document.querySelectorAll('.messages a'), (a) => a.getAttribute('href')));
  // Links stay only with http(s) targets (a click, never a load).
  assert.ok(links.every((h) => h && /^https?:\/\//.test(h)), `links: ${links}`);
  const stray = requested.filter((u) => !u.startsWith(STEWARD));
  assert.deepEqual(stray, [], 'something was requested from elsewhere');
}

test('a hostile message, answer, tool result and tool name stay text', async () => {
  await fake.steps([
    { reply: { tool_calls: [
      { name: 'db_query', arguments: JSON.stringify({ sql: TOOL_RESULT_SQL }) },
      { name: TOOL_NAME, arguments: '{"x": "<script>window.__pwned=12</script>"}' },
    ] } },
    reply(ANSWER),
  ]);
  await newConversation(page);
  await send(page, MESSAGE);
  await turnEnded(page);

  assert.equal(await page.locator('article.msg.user .msg-text').textContent(), MESSAGE);
  const turn = page.locator('article.msg.assistant').last();
  const names = await turn.locator('.tool-name').allTextContents();
  assert.deepEqual(names, ['db_query', TOOL_NAME]);
  await turn.locator('.tool-output summary').first().click();
  // The server fences tool output (its `<` escaped); the page shows that as text.
  assert.match(await turn.locator('.tool-output pre').first().textContent(), /img src=x onerror="window.__pwned=10"/);
  const text = (await turn.locator('.turn-text').textContent()).trim();
  assert.match(text, /Raw: <img src=x onerror=/, 'raw HTML shown as text');
  // Steward itself turns images in a final answer into their words; the page never shows one.
  assert.match(text, /remote inline/, 'images became their alt text');
  assert.equal(await turn.locator('.turn-text pre code').count(), 1, 'the code block is code');
  await assertInert();

  await page.reload();
  await page.locator('article.msg.user').waitFor();
  await page.locator('article.msg.assistant .turn-text').last().waitFor();
  assert.equal(await page.locator('article.msg.user .msg-text').textContent(), MESSAGE);
  assert.ok((await page.locator('.tool-name').allTextContents()).includes(TOOL_NAME));
  await assertInert();
});

test("the page's markdown renderer keeps nothing that loads or runs, whatever the model streams", async () => {
  // The streamed deltas are not defused by Steward the way a final answer is: the renderer
  // itself must hold. Run it on the page, as the painter does.
  const cases = [
    ['![remote](http://127.0.0.1:9/evil.png)', '[image: remote]'],
    ['![](https://example.org/x.png)', '[image]'],
    ['![d](data:image/png;base64,iVBORw0KGgo=)', '[image: d]'],
    [`<img src=x onerror="${canary(20)}">`, `<img src=x onerror="${canary(20)}">`],
    [`<details open ontoggle="${canary(21)}">x</details>`, `<details open ontoggle="${canary(21)}">x</details>`],
    [`[a](javascript:${canary(22)})`, 'a'],
    [`[b](JaVaScRiPt:${canary(23)})`, 'b'],
    ['[c](/api/v1/conversations)', 'c'],
    [`<form action="/api/v1/session"><button>go</button></form>`, '<form action="/api/v1/session"><button>go</button></form>'],
    ['`<script>x</script>`', '<script>x</script>'],
  ];
  const out = await page.evaluate(async (list) => {
    const { renderMarkdown } = await import('/app/markdown.js');
    return list.map(([md]) => {
      const box = document.createElement('div');
      box.append(renderMarkdown(md));
      document.body.append(box);
      const elements = Array.from(box.querySelectorAll('*'), (e) => e.tagName.toLowerCase());
      const attrs = Array.from(box.querySelectorAll('*'), (e) => Array.from(e.attributes, (a) => `${a.name}=${a.value}`)).flat();
      box.remove();
      return { text: box.textContent.trim(), elements, attrs };
    });
  }, cases);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  cases.forEach(([md, text], i) => {
    assert.equal(out[i].text, text, md);
    const allowed = new Set(['p', 'code', 'a', 'br']);
    assert.ok(out[i].elements.every((t) => allowed.has(t)), `${md}: ${out[i].elements}`);
    assert.ok(out[i].attrs.every((a) => /^(href=https:|target=_blank|rel=)/.test(a)), `${md}: ${out[i].attrs}`);
  });
});
