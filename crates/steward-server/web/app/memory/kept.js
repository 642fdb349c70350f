// The smaller kinds on the Memory page: read-later links (`/api/v1/read-later`: mark read,
// delete), learnings from reflection (`/api/v1/learnings`: delete; never written from here)
// and follow-ups (`/api/v1/reminders`: mark done, delete). Each is a ListSection; a link is
// shown as a link only for an http(s) address, anything else stays text.

import { del, patch } from '../api.js';
import { h, when } from '../dom.js';
import { describe } from '../errors.js';
import { askFirst } from './confirm.js';
import { ListSection, actions, button } from './section.js';

function checkbox(id, label, onChange) {
  const box = h('input', { type: 'checkbox', id, on: { change: onChange } });
  return { box, controls: [box, h('label', { for: id, text: label })] };
}

function deleteButton(bar, what, path, section) {
  return button('Delete', `Delete ${what}`, () => askFirst(bar, `Delete ${what}?`, async () => {
    await del(path);
    await section.load();
  }, (e) => describe(e)), 'danger');
}

function safeLink(url, text) {
  let ok = false;
  try {
    const u = new URL(url);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  return ok
    ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text })
    : h('span', { text });
}

export function readLaterSection(view) {
  const { box, controls } = checkbox('read-later-all', 'Show the ones already read', () => section.load());
  const section = new ListSection(view, {
    id: 'read-later',
    title: 'Read later',
    intro: 'Links you asked Steward to keep for later, newest first.',
    empty: 'Nothing is waiting to be read. Ask Steward to keep a link for later and it shows here.',
    controls,
    url: () => `/api/v1/read-later?limit=500${box.checked ? '&include_read=true' : ''}`,
    items: (body) => body.items,
    row: (item, s) => {
      const name = item.title || item.url;
      const bar = actions();
      const read = item.read_at_ms !== null && item.read_at_ms !== undefined;
      bar.append(
        button(read ? 'Mark unread' : 'Mark read', `${read ? 'Mark unread' : 'Mark read'}: ${name}`, async (ev) => {
          ev.currentTarget.disabled = true;
          try {
            await patch(`/api/v1/read-later/${item.id}`, { read: !read });
            await s.load();
          } catch (e) {
            s.status.textContent = describe(e);
          }
        }),
        deleteButton(bar, `the link “${name}”`, `/api/v1/read-later/${item.id}`, s));
      return h('li', { class: 'memory-row read-later', 'data-id': String(item.id), 'data-read': read ? 'true' : 'false' },
        h('h3', { class: 'read-later-title' }, safeLink(item.url, name)),
        h('p', { class: 'read-later-url muted', text: item.url }),
        h('p', { class: 'provenance' }, 'Kept ', when(item.created_at_ms),
          read ? ['; read ', when(item.read_at_ms)] : '', '.',
          item.tags.length ? ` Tags: ${item.tags.join(', ')}.` : ''),
        bar);
    },
  });
  return section;
}

export function learningsSection(view) {
  return new ListSection(view, {
    id: 'learnings',
    title: 'Learnings',
    intro: 'What Steward’s nightly reflection concluded about how you like things done, most recurrent first. Delete one that is wrong.',
    empty: 'Steward has learned nothing from reflection yet. Learnings appear after some conversations.',
    url: () => '/api/v1/learnings?limit=500',
    items: (body) => body.learnings,
    row: (l, s) => {
      const bar = actions();
      bar.append(deleteButton(bar, 'this learning', `/api/v1/learnings/${l.id}`, s));
      return h('li', { class: 'memory-row learning', 'data-id': String(l.id) },
        h('p', { class: 'learning-text', text: l.text }),
        h('p', { class: 'provenance' }, `Seen ${l.recurrence} ${l.recurrence === 1 ? 'time' : 'times'}, last `, when(l.last_seen_ms), '.'),
        bar);
    },
  });
}

export function remindersSection(view) {
  const { box, controls } = checkbox('reminders-all', 'Show the ones already done', () => section.load());
  const section = new ListSection(view, {
    id: 'follow-ups',
    title: 'Follow-ups',
    intro: 'Things Steward means to come back to you about, soonest first.',
    empty: 'No follow-ups are open. When Steward promises to come back to something, it shows here.',
    controls,
    url: () => `/api/v1/reminders?limit=500${box.checked ? '&include_done=true' : ''}`,
    items: (body) => body.reminders,
    row: (r, s) => {
      const bar = actions();
      bar.append(
        button(r.done ? 'Mark not done' : 'Mark done', `${r.done ? 'Mark not done' : 'Mark done'}: ${r.text}`, async (ev) => {
          ev.currentTarget.disabled = true;
          try {
            await patch(`/api/v1/reminders/${r.id}`, { done: !r.done });
            await s.load();
          } catch (e) {
            s.status.textContent = describe(e);
          }
        }),
        deleteButton(bar, 'this follow-up', `/api/v1/reminders/${r.id}`, s));
      return h('li', { class: 'memory-row reminder', 'data-id': String(r.id), 'data-done': r.done ? 'true' : 'false' },
        h('p', { class: 'reminder-text', text: r.text }),
        h('p', { class: 'provenance' },
          r.due_at_ms ? ['Due ', when(r.due_at_ms), '.'] : 'No date.',
          r.done ? ' Done.' : ''),
        bar);
    },
  });
  return section;
}
