// The Mini App's Today tab, `#/today`: what needs the owner now — how many actions wait for
// a decision (a link to the Approve tab), the reminders still open, and what is unread in
// read-later — from the same `/api/v1` routes the web app's pages read.
//
// Does not own: any of those lists (the Approve and Memory tabs show them whole).

import { get } from '../api.js';
import { h, replace, when } from '../dom.js';
import { describe } from '../errors.js';

const SHOWN = 5;

function section(title, body) {
  return h('section', { class: 'today-section' }, h('h2', { text: title }), body);
}

export default {
  id: 'today',
  href: '#/today',
  match: (path) => (path === '/today' ? {} : null),
  title: () => 'Today',

  async render(view) {
    const content = h('div', { class: 'today', 'aria-busy': 'true' }, h('p', { class: 'muted', text: 'Loading…' }));
    replace(view.root, h('div', { class: 'page page-today' }, h('h1', { text: 'Today' }), content));
    try {
      const [count, reminders, later] = await Promise.all([
        get('/api/v1/approvals/count', { signal: view.signal }),
        get('/api/v1/reminders', { signal: view.signal }),
        get('/api/v1/read-later', { signal: view.signal }),
      ]);
      if (!view.alive()) return;
      const pending = (count && count.pending) || 0;
      const open = ((reminders && reminders.reminders) || []).filter((r) => !r.done);
      const unread = ((later && later.items) || []).filter((i) => !i.read_at_ms);
      replace(content,
        section('Waiting for you', pending
          ? h('p', {}, h('a', { href: '#/approvals', class: 'today-pending', text: `${pending} action${pending === 1 ? '' : 's'} to approve` }))
          : h('p', { class: 'muted today-pending', text: 'Nothing waits for your approval.' })),
        section('Reminders', open.length
          ? h('ul', {}, open.slice(0, SHOWN).map((r) => h('li', {}, r.text, r.due_at_ms ? [' — ', when(r.due_at_ms)] : null)))
          : h('p', { class: 'muted', text: 'No open reminders.' })),
        section('To read', unread.length
          ? h('ul', {}, unread.slice(0, SHOWN).map((i) => h('li', { text: i.title || i.url })))
          : h('p', { class: 'muted', text: 'Nothing unread.' })));
      content.removeAttribute('aria-busy');
    } catch (e) {
      if (!view.alive() || (e && e.name === 'AbortError')) return;
      replace(content, h('p', { class: 'error', role: 'alert', text: describe(e) }));
      content.removeAttribute('aria-busy');
    }
  },
};
