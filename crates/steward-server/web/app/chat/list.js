// The conversation list beside the chat: every conversation (from any surface), newest first
// (`GET /api/v1/conversations`), each opened by its link, renamed (`PATCH`, an empty title
// clears it) or deleted (`DELETE`, after an in-page "are you sure" — never the browser's own
// dialog, which some browsers refuse). Only the newest listing paints. Titles are text. A
// conversation Steward wrote to while it was not open carries a "New" mark (inbox.js keeps
// the marks; the list shows them and forgets those of conversations no longer listed).

import { del, get, patch, seg } from '../api.js';
import { h, replace, when } from '../dom.js';
import { describe } from '../errors.js';
import { go } from '../router.js';
import { isUnread, keepOnly, onInboxChange } from './inbox.js';

/** Most conversations listed. */
const LISTED = 200;

export function titleOf(summary) {
  return summary && summary.title ? summary.title : 'Untitled conversation';
}

export class ConversationList {
  /** @param {{newConversation: () => void, deleted: (id: string) => void,
   *   renamed?: (summary: object) => void, painted?: () => void}} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.generation = 0;
    this.current = null;
    this.items = [];
    this.listEl = h('ul', { class: 'conv-items' });
    this.statusEl = h('p', { class: 'conv-status', role: 'status' });
    this.errorEl = h('p', { class: 'error', role: 'alert', hidden: true });
    this.el = h('nav', { class: 'conversations', 'aria-labelledby': 'conv-heading' },
      h('div', { class: 'conv-head' },
        h('h2', { id: 'conv-heading', text: 'Conversations' }),
        h('button', { type: 'button', class: 'primary', text: 'New conversation',
          on: { click: () => this.hooks.newConversation() } })),
      this.errorEl, this.statusEl, this.listEl);
    this.timer = null;
    this.offInbox = onInboxChange(() => this.paintMarks());
  }

  /** The page is left: no more repainting. */
  close() {
    clearTimeout(this.timer);
    this.offInbox();
  }

  /** Whether `id` is listed. */
  has(id) {
    return this.items.some((c) => c.id === id);
  }

  summary(id) {
    return this.items.find((c) => c.id === id) || null;
  }

  setCurrent(id) {
    this.current = id;
    for (const a of this.listEl.querySelectorAll('a.conv-link')) {
      if (a.dataset.id === id) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }

  /** List again soon (a burst of changes makes one request). */
  refreshSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 150);
  }

  async refresh(signal) {
    const mine = ++this.generation;
    if (!this.items.length) this.statusEl.textContent = 'Loading conversations…';
    try {
      const body = await get(`/api/v1/conversations?limit=${LISTED}`, { signal });
      if (mine !== this.generation) return;
      this.items = body.conversations;
      this.errorEl.hidden = true;
      this.paint();
    } catch (e) {
      if (mine !== this.generation || e.name === 'AbortError') return;
      this.statusEl.textContent = '';
      this.showError(describe(e));
    }
  }

  showError(text) {
    this.errorEl.textContent = text;
    this.errorEl.hidden = false;
  }

  paint() {
    // A whole listing: a mark on a conversation not in it (deleted here or elsewhere) is stale.
    if (this.items.length < LISTED) keepOnly(this.items.map((c) => c.id));
    this.statusEl.textContent = this.items.length ? '' : 'No conversations yet.';
    // A row the owner is renaming or deleting stays as it is: a refresh (a turn ended in
    // another conversation) must not throw away what they are typing.
    const editing = new Map(Array.from(this.listEl.querySelectorAll('li.conv-item[data-editing]'), (li) => [li.dataset.id, li]));
    replace(this.listEl, this.items.map((c) => editing.get(c.id) || this.item(c)));
    this.setCurrent(this.current);
    this.hooks.painted?.();
  }

  item(c) {
    const li = h('li', { class: 'conv-item', 'data-id': c.id });
    this.plain(li, c);
    return li;
  }

  plain(li, c) {
    delete li.dataset.editing;
    const title = titleOf(c);
    replace(li,
      h('a', { class: 'conv-link', href: `#/chat/${encodeURI(c.id)}`, 'data-id': c.id, 'data-unread': isUnread(c.id) },
        h('span', { class: 'conv-line' }, h('span', { class: 'conv-title', text: title }), this.mark(c.id)),
        h('span', { class: 'conv-meta' }, when(c.updated_at_ms))),
      h('div', { class: 'conv-actions' },
        h('button', { type: 'button', class: 'quiet', text: 'Rename', 'aria-label': `Rename “${title}”`,
          on: { click: () => this.renaming(li, c) } }),
        h('button', { type: 'button', class: 'quiet', text: 'Delete', 'aria-label': `Delete “${title}”`,
          on: { click: () => this.deleting(li, c) } })));
  }

  /** The "New" mark of an unread conversation (null: read). Its words on screen are short;
   * a screen reader hears what it means, as part of the link's name. */
  mark(id) {
    if (!isUnread(id)) return null;
    return h('span', { class: 'conv-new' },
      h('span', { 'aria-hidden': 'true', text: 'New' }),
      h('span', { class: 'visually-hidden', text: ', new message from Steward' }));
  }

  /** Marks added or cleared: each shown row's link gets its mark or loses it. */
  paintMarks() {
    for (const link of this.listEl.querySelectorAll('a.conv-link')) {
      const line = link.querySelector('.conv-line');
      line.querySelector('.conv-new')?.remove();
      const mark = this.mark(link.dataset.id);
      if (mark) line.append(mark);
      link.toggleAttribute('data-unread', Boolean(mark));
    }
  }

  renaming(li, c) {
    const inputId = `rename-${c.id}`;
    const input = h('input', { id: inputId, type: 'text', value: c.title || '', maxlength: 200, autocomplete: 'off' });
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const form = h('form', { class: 'conv-rename', on: {
      submit: async (ev) => {
        ev.preventDefault();
        const title = input.value.trim();
        try {
          const summary = await patch(`/api/v1/conversations/${seg(c.id)}`, { title: title || null });
          // A listing read while the rename was on its way may have replaced `items` with the
          // old title, and one still on its way would: the local change wins over both.
          this.generation++;
          Object.assign(c, summary);
          const listed = this.items.find((x) => x.id === c.id);
          if (listed && listed !== c) Object.assign(listed, summary);
          this.plain(li, c);
          li.querySelector('.conv-link').focus();
          this.hooks.renamed?.(c);
        } catch (e) {
          error.textContent = describe(e, 'This conversation no longer exists.');
          error.hidden = false;
        }
      },
      keydown: (ev) => {
        if (ev.key === 'Escape') this.plain(li, c);
      },
    } },
    h('label', { for: inputId, text: 'New title' }), input,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary', text: 'Save' }),
      h('button', { type: 'button', text: 'Cancel', on: { click: () => {
        this.plain(li, c);
        li.querySelector('.conv-link').focus();
      } } })),
    error);
    replace(li, form);
    li.dataset.editing = 'rename';
    input.focus();
    input.select();
  }

  deleting(li, c) {
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const keep = h('button', { type: 'button', text: 'Keep it', on: { click: () => {
      this.plain(li, c);
      li.querySelector('.conv-link').focus();
    } } });
    replace(li, h('div', { class: 'conv-delete', role: 'group', 'aria-label': 'Delete this conversation?' },
      h('p', {}, 'Delete “', h('span', { text: titleOf(c) }), '” and all its messages?'),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'danger', text: 'Delete', on: { click: async () => {
          try {
            await del(`/api/v1/conversations/${seg(c.id)}`);
            this.generation++;
            this.items = this.items.filter((x) => x.id !== c.id);
            this.paint();
            this.hooks.deleted(c.id);
            if (this.current === c.id) go('/chat');
          } catch (e) {
            error.textContent = describe(e, 'This conversation was already deleted.');
            error.hidden = false;
          }
        } } }),
        keep),
      error));
    li.dataset.editing = 'delete';
    keep.focus();
  }
}
