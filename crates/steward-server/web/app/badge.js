// The pending-approvals count in the header of every page: `GET /api/v1/approvals/count` (a
// count, no cards), asked again whenever an approval changes (the feed) or the feed comes back.
// Only the newest count paints: a slow answer to an older request is dropped.

import { get } from './api.js';
import { h, replace } from './dom.js';
import { onFeed } from './feed.js';
import { hasPage } from './router.js';

let generation = 0;
let slot = null;
let timer = null;

/** Build the badge into `el` and keep it current. */
export function mountBadge(el) {
  slot = el;
  onFeed('approval', schedule);
  onFeed('resync', schedule);
}

/** Count again soon (several changes in a burst make one request). */
export function schedule() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 100);
}

export async function refresh() {
  if (!slot) return;
  const mine = ++generation;
  let count;
  try {
    const body = await get('/api/v1/approvals/count');
    count = Number.isSafeInteger(body.pending) ? body.pending : null;
  } catch {
    count = null;
  }
  if (mine !== generation) return;
  paint(count);
}

function paint(count) {
  const known = count !== null;
  const shown = known ? String(count) : '?';
  const label = !known
    ? 'Approvals waiting: unknown'
    : `${shown} ${count === 1 ? 'approval' : 'approvals'} waiting`;
  const props = {
    class: `badge${known && count > 0 ? ' badge-due' : ''}`,
    'aria-label': label,
    'data-count': known ? String(count) : '',
    title: label,
  };
  // A link once there is an approvals page to go to.
  const body = [h('span', { class: 'badge-word', text: 'Approvals', 'aria-hidden': 'true' }),
    h('span', { class: 'badge-count', text: shown, 'aria-hidden': 'true' })];
  const badge = hasPage('/approvals')
    ? h('a', { ...props, href: '#/approvals' }, ...body)
    : h('span', { ...props, role: 'status' }, ...body);
  replace(slot, badge);
}

/** Forget the count (signed out). */
export function clearBadge() {
  generation++;
  if (slot) slot.replaceChildren();
}
