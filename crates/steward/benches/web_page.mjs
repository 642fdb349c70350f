// The web app's weight and speed in Chromium, driven by benches/web_page.rs (which starts the
// instant fake model and the real `steward serve`, and hands over STEWARD_URL, STEWARD_TOKEN,
// CHROMIUM, STEWARD_TEST_BROWSER_DIR and BENCH_TURNS). Prints one JSON line:
// - `first_load`: bytes on the wire (compressed bodies plus headers: the devtools protocol's
//   `encodedDataLength` of every response) of a first, uncached visit, signed out (the
//   sign-in page) and signed in (the chat page);
// - `first_char_ms`: for each turn, the time from the Enter keydown to the frame after the
//   first streamed character entered the reply (performance.now() in the page, a
//   MutationObserver on the thread, then requestAnimationFrame).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through cargo bench -p steward --bench web_page`);
  return v;
};
const STEWARD = env('STEWARD_URL');
const TOKEN = env('STEWARD_TOKEN');
const TURNS = Number(process.env.BENCH_TURNS || 20);
const WARMUP = 3;
const { chromium } = await import(pathToFileURL(join(env('STEWARD_TEST_BROWSER_DIR'), 'node_modules/playwright-core/index.mjs')).href);

const browser = await chromium.launch({ executablePath: env('CHROMIUM'), args: ['--no-sandbox', '--disable-gpu'] });

/** Bytes and requests of loading `url` with an empty cache, until the network is idle. */
async function coldLoad(page, cdp, url, ready) {
  const bytes = new Map();
  const onDone = (e) => bytes.set(e.requestId, e.encodedDataLength);
  cdp.on('Network.loadingFinished', onDone);
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.locator(ready).waitFor();
  cdp.off('Network.loadingFinished', onDone);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  let total = 0;
  for (const n of bytes.values()) total += n;
  return { bytes: total, requests: bytes.size };
}

const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');

const signedOut = await coldLoad(page, cdp, `${STEWARD}/`, '#secret');
await page.getByLabel('API token').check();
await page.locator('#secret').fill(TOKEN);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.locator('.page-chat').waitFor();
// The event stream never goes idle (and never finishes, so its bytes are not counted): wait
// for the page's own requests, then count.
const signedIn = await (async () => {
  const bytes = new Map();
  const onDone = (e) => bytes.set(e.requestId, e.encodedDataLength);
  cdp.on('Network.loadingFinished', onDone);
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  // A reload: the address is already `#/chat`, so a goto would not load anything.
  await page.reload({ waitUntil: 'load' });
  await page.locator('.conversations').waitFor();
  await page.waitForTimeout(1000);
  cdp.off('Network.loadingFinished', onDone);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  let total = 0;
  for (const n of bytes.values()) total += n;
  return { bytes: total, requests: bytes.size };
})();

await page.getByRole('button', { name: 'New conversation' }).click();
await page.locator('#composer').waitFor();

const times = [];
for (let i = 0; i < TURNS + WARMUP; i++) {
  await page.locator('#composer').fill(`benchmark message ${i}`);
  const armed = page.evaluate(() => new Promise((resolve) => {
    const composer = document.getElementById('composer');
    const before = document.querySelectorAll('article.msg.assistant').length;
    let t0 = null;
    composer.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') t0 = performance.now();
    }, { capture: true, once: true });
    const observer = new MutationObserver(() => {
      const turns = document.querySelectorAll('article.msg.assistant');
      if (turns.length <= before) return;
      const text = turns[turns.length - 1].querySelector('.turn-text');
      if (!text || text.textContent.trim().length === 0) return;
      observer.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - t0));
    });
    observer.observe(document.querySelector('.messages'), { childList: true, subtree: true, characterData: true });
  }));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  await page.locator('#composer').press('Enter');
  const ms = await armed;
  await page.waitForFunction(() => {
    const turns = document.querySelectorAll('article.msg.assistant');
    return turns[turns.length - 1]?.getAttribute('aria-busy') === 'false';
  });
  if (i >= WARMUP) times.push(ms);
}

await browser.close();
console.log(JSON.stringify({ first_load: { signed_out: signedOut, signed_in: signedIn }, first_char_ms: times }));
