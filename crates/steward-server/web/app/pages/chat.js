// The chat page, `#/chat` and `#/chat/ID`: the conversation list beside one open conversation
// (on a phone, one or the other). Opening another conversation swaps the thread without
// rebuilding the page; the closed thread paints nothing more. The feed's events go to the
// open thread and keep the list current; the inbox is told which conversation is open, so a
// message Steward sends to any other marks that one unread (chat/inbox.js).

import { h, replace } from '../dom.js';
import { onFeed } from '../feed.js';
import { go } from '../router.js';
import { setOpen } from '../chat/inbox.js';
import { ConversationList, titleOf } from '../chat/list.js';
import { Thread } from '../chat/thread.js';

const ID = /^\/chat(?:\/([A-Za-z0-9._:-]{1,128}))?$/;
/** Conversations made on this page and not stored yet (their history is a 404 until then). */
const fresh = new Set();

/** A new conversation id, `web-` and 32 random hex digits (getRandomValues works over plain
 * http too, unlike randomUUID). */
function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export default {
  id: 'chat',
  nav: 'Chat',
  href: '#/chat',
  match(path) {
    const m = ID.exec(path);
    return m ? { id: m[1] || null } : null;
  },
  title() {
    return 'Chat';
  },

  render(view, params) {
    const state = { thread: null };
    view.chat = state;
    state.list = new ConversationList({
      newConversation: () => {
        const id = newId();
        fresh.add(id);
        go(`/chat/${id}`);
      },
      deleted: (id) => fresh.delete(id),
      renamed: (c) => {
        if (state.thread && state.thread.id === c.id) state.thread.setTitle(titleOf(c));
      },
      painted: () => {
        const t = state.thread;
        if (t && state.list.has(t.id)) t.setTitle(titleOf(state.list.summary(t.id)));
      },
    });
    state.slot = h('div', { class: 'thread-slot' });
    state.layout = h('div', { class: 'chat' }, state.list.el, state.slot);
    view.root.append(state.layout);
    state.list.refresh(view.signal);

    const offs = [
      onFeed('turn', (d) => {
        state.thread?.onFeedTurn(d);
        const ev = d.event;
        if (!state.list.has(d.conversation_id) || ev.type === 'final' || ev.type === 'failed') state.list.refreshSoon();
      }),
      onFeed('approval', (d) => state.thread?.onFeedApproval(d)),
      onFeed('delivered', (d) => {
        state.thread?.onFeedDelivered(d);
        state.list.refreshSoon();
      }),
      onFeed('resync', () => {
        state.list.refreshSoon();
        state.thread?.resync();
      }),
    ];
    view.onLeave(() => {
      for (const off of offs) off();
      state.thread?.close();
      state.list.close();
      setOpen(null);
    });
    this.open(view, params);
  },

  update(view, params) {
    if (!view.chat) return false;
    this.open(view, params);
    if (view.chat.thread) view.chat.thread.focusComposer();
    return true;
  },

  open(view, { id }) {
    const state = view.chat;
    if (state.thread && state.thread.id === id) return;
    state.thread?.close();
    state.thread = null;
    state.list.setCurrent(id);
    setOpen(id);
    state.layout.dataset.open = id ? 'thread' : 'list';
    if (!id) {
      replace(state.slot, h('section', { class: 'thread thread-none', 'aria-labelledby': 'thread-title' },
        h('h1', { id: 'thread-title', text: 'Chat' }),
        h('p', { class: 'muted', text: 'Open a conversation from the list, or start a new one.' })));
      return;
    }
    const summary = state.list.summary(id);
    // Not listed yet (the list is being read again, or the conversation is new here): read it
    // again, and its `painted` hook gives the thread its title once it is there.
    if (!summary) state.list.refreshSoon();
    const thread = new Thread(id, {
      fresh: fresh.has(id),
      title: summary ? titleOf(summary) : fresh.has(id) ? 'New conversation' : 'Conversation',
      turnEnded: () => {
        fresh.delete(id);
        state.list.refreshSoon();
      },
    });
    state.thread = thread;
    replace(state.slot, thread.el);
    thread.load();
  },
};
