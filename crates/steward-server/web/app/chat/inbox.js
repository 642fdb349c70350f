// The web inbox: which conversations received a message Steward sent unasked (a reminder, a
// briefing, a task's answer: `delivered` on the feed) while they were not the open one, and
// how many there are on the Chat link of the header. The marks live in this tab's
// sessionStorage — a reload keeps them, another tab keeps its own, signing out forgets them —
// because the server does not know which messages this browser has shown (no server state).
// Opening the conversation clears its mark.
//
// Owns: the marks, the header's count. Does not own: the feed (feed.js), how the list shows a
// mark (list.js), what "open" is (the chat page says, through `setOpen`).

import { append, h } from '../dom.js';
import { onFeed } from '../feed.js';

const KEY = 'steward.unread';
/** The conversation on screen now (null: none, or not on the chat page). */
let open = null;
let marks = new Set(load());
const watchers = new Set();
let countEl = null;

function load() {
  try {
    const ids = JSON.parse(sessionStorage.getItem(KEY) || '[]');
    return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : [];
  } catch {
    // Storage refused (a private window, a full quota) or garbled: start with no marks.
    return [];
  }
}

function changed() {
  try {
    if (marks.size) sessionStorage.setItem(KEY, JSON.stringify([...marks]));
    else sessionStorage.removeItem(KEY);
  } catch {
    // The marks still work for this page; a reload just forgets them.
  }
  paintCount();
  for (const fn of watchers) fn();
}

/** Start marking (once, at boot): `link` is the header's Chat link, where the count goes. */
export function mountInbox(link) {
  if (link) {
    countEl = h('span', { class: 'nav-count', hidden: true });
    link.append(countEl);
    paintCount();
  }
  onFeed('delivered', (d) => {
    const id = d && d.conversation_id;
    if (typeof id !== 'string' || id === open || marks.has(id)) return;
    marks.add(id);
    changed();
  });
}

function paintCount() {
  if (!countEl) return;
  const n = marks.size;
  countEl.replaceChildren();
  countEl.hidden = n === 0;
  if (!n) return;
  // The link's name stays "Chat …" (it starts with the words on screen); the number alone
  // would say nothing to a screen reader.
  append(countEl, [
    h('span', { 'aria-hidden': 'true', text: String(n) }),
    h('span', { class: 'visually-hidden', text: ` (${n} ${n === 1 ? 'conversation' : 'conversations'} with a new message from Steward)` }),
  ]);
}

/** Whether `id` received a message since it was last open. */
export function isUnread(id) {
  return marks.has(id);
}

/** `id` is on screen now (null: none is): its mark goes, and what arrives in it is seen. */
export function setOpen(id) {
  open = id || null;
  if (open && marks.delete(open)) changed();
}

/** Forget the marks of conversations that are not there any more (`ids`: every one that is). */
export function keepOnly(ids) {
  const live = new Set(ids);
  const before = marks.size;
  marks = new Set([...marks].filter((id) => live.has(id)));
  if (marks.size !== before) changed();
}

/** Forget every mark (signed out). */
export function clearInbox() {
  open = null;
  if (!marks.size) return;
  marks = new Set();
  changed();
}

/** `fn()` after any mark changed; returns the unsubscribe function. */
export function onInboxChange(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}
