// The Telegram Mini App's entry (`/miniapp/`): the web app's own pages — Approve, Memory,
// Status — and a Today tab, in Telegram. The page holds no data: every call carries the
// Mini App's signed `initData` as `Authorization: tma …`, which the server checks (HMAC with
// the bot's token, age, the same allowlist as the bot) before anything else. Opened outside
// Telegram (no initData), it says where to open it and makes no call.
//
// Does not own: the pages (pages/*.js, shared with the web app), the check (the server's).

import { setAuthorization } from '../api.js';
import { mountBadge, refresh as refreshBadge } from '../badge.js';
import { setConfirmGuard } from '../chat/card.js';
import { h, replace } from '../dom.js';
import { startFeed } from '../feed.js';
import approvals from '../pages/approvals.js';
import memory from '../pages/memory.js';
import status from '../pages/status.js';
import { register, start } from '../router.js';
import { biometricGuard } from './biometric.js';
import today from './today.js';

const TABS = [
  [today, 'Today'],
  [memory, 'Memory'],
  [approvals, 'Approve'],
  [status, 'Status'],
];

/** The signed initData: Telegram's bridge when loaded, else the launch URL's fragment. */
export function initData() {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && typeof webApp.initData === 'string' && webApp.initData) return webApp.initData;
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  return fragment.get('tgWebAppData') || '';
}

function boot() {
  const main = document.getElementById('main');
  const data = initData();
  if (!data) {
    replace(main, h('div', { class: 'page' },
      h('h1', { text: 'Open this in Telegram' }),
      h('p', { text: 'This page is Steward’s Telegram Mini App: open it from the bot’s menu button in Telegram. In a browser, use the web app instead.' }),
      h('p', {}, h('a', { href: '/', text: 'Go to the web app' }))));
    document.getElementById('top').hidden = true;
    return;
  }
  setAuthorization(`tma ${data}`);
  const webApp = window.Telegram && window.Telegram.WebApp;
  setConfirmGuard(biometricGuard(webApp));
  if (webApp && typeof webApp.ready === 'function') webApp.ready();
  replace(document.getElementById('nav'), TABS.map(([page, label]) =>
    h('li', {}, h('a', { href: page.href, 'data-page': page.id, text: label }))));
  for (const [page] of TABS) register(page);
  mountBadge(document.getElementById('badge'));
  // The live feed, signed like every call: a card decided in the chat or the web app moves
  // here at once. The initData stays valid for the page's life (24 h), so no re-sign-in.
  startFeed(async () => true);
  refreshBadge();
  if (!location.hash.startsWith('#/')) history.replaceState(null, '', '#/today');
  start(main, {
    check: () => null,
    shown(page) {
      for (const a of document.querySelectorAll('#nav a')) {
        if (a.dataset.page === page.id) a.setAttribute('aria-current', 'page');
        else a.removeAttribute('aria-current');
      }
      refreshBadge();
    },
  });
}

boot();
