// The frame around every page: the header (page links from the registered pages, the
// pending-approvals badge, the count of conversations with a new message on the Chat link,
// Sign out), whether this browser is signed in, and what follows
// from it — the feed and the badge run while signed in; a page that needs sign-in sends a
// signed-out visitor to the sign-in page, and back where they were afterwards.

import { onSignedOut } from './api.js';
import { clearBadge, mountBadge, refresh as refreshBadge } from './badge.js';
import { clearInbox, mountInbox } from './chat/inbox.js';
import { h, replace } from './dom.js';
import { describe } from './errors.js';
import { startFeed, stopFeed } from './feed.js';
import { currentPath, go, navPages, start } from './router.js';
import { resume, signOut } from './session.js';

let signedIn = false;
let returnTo = '/chat';
let notice = '';

/** Whether this browser is signed in (as far as the page knows). */
export function isSignedIn() {
  return signedIn;
}

/** A note for the sign-in page ("your sign-in ended"), read once. */
export function takeNotice() {
  const n = notice;
  notice = '';
  return n;
}

/** The sign-in page succeeded: start what needs a session and go back. */
export function enterSignedIn() {
  signedIn = true;
  startFeed(stillSignedIn);
  refreshBadge();
  const to = returnTo;
  returnTo = '/chat';
  go(to);
}

async function stillSignedIn() {
  const ok = await resume();
  if (!ok) leave('Your sign-in has ended. Sign in again to continue.');
  return ok;
}

function leave(message) {
  if (!signedIn) return;
  signedIn = false;
  notice = message;
  stopFeed();
  clearBadge();
  clearInbox();
  const path = currentPath();
  if (!path.startsWith('/signin')) returnTo = path;
  go('/signin');
}

function buildHeader() {
  const nav = document.getElementById('nav');
  replace(nav, navPages().map((p) => h('li', {}, h('a', { href: p.href, 'data-page': p.id, text: p.nav }))));
  mountBadge(document.getElementById('badge'));
  mountInbox(nav.querySelector('a[data-page="chat"]'));
  document.getElementById('sign-out').addEventListener('click', async (ev) => {
    const button = ev.currentTarget;
    button.disabled = true;
    try {
      await signOutHere();
    } finally {
      button.disabled = false;
    }
  });
}

/** Sign this browser out (the header's button, the Settings page's) and show the sign-in. */
export async function signOutHere() {
  try {
    await signOut();
  } catch {
    // Signed out here either way; the server forgets the session when it expires.
  }
  returnTo = '/chat';
  leave('You are signed out.');
}

function markCurrent(page) {
  document.getElementById('top').hidden = !signedIn;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === page.id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** Start the app in `main`. */
export async function boot() {
  const main = document.getElementById('main');
  buildHeader();
  onSignedOut(() => leave('Your sign-in has ended. Sign in again to continue.'));
  try {
    signedIn = await resume();
  } catch (e) {
    replace(main, h('div', { class: 'page boot-failed' },
      h('h1', { text: 'Steward cannot be reached' }),
      h('p', { role: 'alert', text: describe(e) }),
      h('button', { type: 'button', class: 'primary', text: 'Try again', on: { click: () => location.reload() } })));
    return;
  }
  if (signedIn) {
    startFeed(stillSignedIn);
    refreshBadge();
  }
  start(main, {
    check(page, path) {
      if (!page.public && !signedIn) {
        returnTo = path;
        return '/signin';
      }
      if (page.id === 'signin' && signedIn) return '/chat';
      return null;
    },
    shown: markCurrent,
  });
}
