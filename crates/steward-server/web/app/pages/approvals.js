// The approvals page, `#/approvals`: what waits for the owner's decision (the chat's own
// approval cards, chat/card.js, with the same Confirm / Cancel / Edit calls bound to the card
// revision shown), what was decided — who, when, from which surface, and how it ended, each
// with its audit trail on demand — and the standing permissions (grants), each revocable.
// Any change to an approval (the feed) reads the lists again, so a card decided in the
// terminal or another tab moves from pending to history at once. Only the newest read paints.
//
// Does not own: the card itself (chat/card.js) or the badge (badge.js).

import { del, get, seg } from '../api.js';
import { ApprovalCard } from '../chat/card.js';
import { h, replace, when } from '../dom.js';
import { describe } from '../errors.js';
import { onFeed } from '../feed.js';
import { go } from '../router.js';

const HISTORY_LIMIT = 100;

/** The surface words a person reads (`decided.surface`, `trail[].surface`). */
export const SURFACE_WORDS = {
  web: 'the web app',
  http: 'the API',
  cli: 'the terminal',
  openai_api: 'the OpenAI-compatible API',
  telegram: 'Telegram',
  system: 'Steward itself',
};

const OUTCOME_WORDS = {
  confirmed: 'Approved — running',
  running: 'Approved — running',
  executed: 'Approved and done',
  failed: 'Approved, but it failed',
  cancelled: 'Cancelled',
  expired: 'Expired without a decision',
};

const DECISION_WORDS = { confirm: 'Approved', cancel: 'Cancelled', expire: 'Expired' };

const surfaceWords = (s) => SURFACE_WORDS[s] || s;

function decidedLine(decided) {
  if (!decided) return h('p', { class: 'decided muted', text: 'No record of who decided.' });
  const verb = DECISION_WORDS[decided.decision] || decided.decision;
  if (decided.decision === 'expire') {
    return h('p', { class: 'decided' }, `${verb} `, when(decided.at_ms), '.');
  }
  return h('p', { class: 'decided' },
    `${verb} by `, h('span', { class: 'decided-by', text: decided.by }),
    ' from ', h('span', { class: 'decided-surface', 'data-surface': decided.surface, text: surfaceWords(decided.surface) }),
    ', ', when(decided.at_ms), '.');
}

class ApprovalsPage {
  constructor(view) {
    this.view = view;
    this.generation = 0;
    this.timer = null;
    this.pending = h('div', { class: 'pending-list' });
    this.history = h('ol', { class: 'history-list' });
    this.grants = h('ul', { class: 'grant-list' });
    this.error = h('p', { class: 'page-error', role: 'alert', hidden: true });
    view.root.append(
      h('h1', { text: 'Approvals' }),
      this.error,
      h('section', { class: 'approvals-pending', 'aria-labelledby': 'pending-title' },
        h('h2', { id: 'pending-title', text: 'Waiting for you' }), this.pending),
      h('section', { class: 'approvals-history', 'aria-labelledby': 'history-title' },
        h('h2', { id: 'history-title', text: 'Decided' }), this.history),
      h('section', { class: 'approvals-grants', 'aria-labelledby': 'grants-title' },
        h('h2', { id: 'grants-title', text: 'Standing permissions' }),
        h('p', { class: 'muted', text: 'A permission lets one tool run in one conversation without asking, until it lapses or you revoke it.' }),
        this.grants),
    );
    const offs = [onFeed('approval', () => this.soon()), onFeed('resync', () => this.soon())];
    view.onLeave(() => {
      clearTimeout(this.timer);
      for (const off of offs) off();
    });
  }

  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(), 100);
  }

  async load() {
    const mine = ++this.generation;
    const signal = this.view.signal;
    let pending;
    let all;
    let grants;
    try {
      [pending, all, grants] = await Promise.all([
        get('/api/v1/approvals?status=pending&limit=500', { signal }),
        get(`/api/v1/approvals?status=all&limit=${HISTORY_LIMIT}`, { signal }),
        get('/api/v1/grants', { signal }),
      ]);
    } catch (e) {
      if (!this.view.alive() || mine !== this.generation) return;
      this.error.hidden = false;
      this.error.textContent = describe(e);
      return;
    }
    // A late answer to an older read paints nothing over the newer one.
    if (!this.view.alive() || mine !== this.generation) return;
    this.error.hidden = true;
    this.paintPending(pending.actions);
    this.paintHistory(all.actions.filter((x) => x.action.status !== 'pending'));
    this.paintGrants(grants.grants);
  }

  paintPending(items) {
    if (items.length === 0) {
      replace(this.pending, h('p', { class: 'empty', text: 'Nothing is waiting for your approval. When Steward wants to do something that needs your word, it asks here and in the chat.' }));
      return;
    }
    replace(this.pending, items.map(({ action, card }) => {
      const view = new ApprovalCard(card, {
        // An edit is described in words in the card's own conversation.
        onEdit: () => go(`/chat/${action.conversation}`),
      });
      view.show(card, action);
      return view.el;
    }));
  }

  paintHistory(items) {
    if (items.length === 0) {
      replace(this.history, h('li', { class: 'empty', text: 'No approval has been decided yet. Decided ones are listed here, newest first.' }));
      return;
    }
    // A trail the owner opened stays open across a repaint (every approval event repaints),
    // read again: it may have a step more.
    const open = new Set([...this.history.querySelectorAll('.history-item[data-action] details[open]')]
      .map((d) => d.closest('.history-item').dataset.action));
    const fresh = items.map((item) => this.historyItem(item));
    replace(this.history, fresh);
    for (const li of fresh) {
      if (open.has(li.dataset.action)) li.querySelector('details').open = true;
    }
  }

  historyItem({ action, card, decided }) {
    const trail = h('ol', { class: 'trail' });
    const details = h('details', { class: 'history-details' },
      h('summary', { text: 'Details' }),
      h('pre', { class: 'card-text', text: card ? card.text : action.preview }),
      action.outcome ? h('pre', { class: 'history-outcome', text: action.outcome }) : null,
      h('h4', { text: 'What happened' }),
      trail);
    details.addEventListener('toggle', () => {
      if (details.open && !trail.dataset.loaded) this.loadTrail(action.id, trail);
    });
    return h('li', { class: 'history-item', 'data-action': action.id, 'data-status': action.status },
      h('h3', { class: 'history-title' },
        h('span', { class: 'tool-name', text: action.tool }), ' — ',
        h('span', { class: 'history-outcome-word', text: OUTCOME_WORDS[action.status] || action.status })),
      decidedLine(decided),
      details);
  }

  async loadTrail(id, el) {
    replace(el, h('li', { class: 'muted', text: 'Loading…' }));
    try {
      const res = await get(`/api/v1/approvals/${seg(id)}`, { signal: this.view.signal });
      if (!this.view.alive()) return;
      el.dataset.loaded = '1';
      replace(el, (res.trail || []).map((step) => h('li', { class: 'trail-step' },
        h('span', { class: 'trail-event', text: step.event }), ' by ', step.by, ' from ',
        surfaceWords(step.surface), ', ', when(step.at_ms),
        step.detail ? h('pre', { class: 'trail-detail', text: JSON.stringify(step.detail, null, 2) }) : null)));
    } catch (e) {
      if (this.view.alive()) replace(el, h('li', { role: 'alert', text: describe(e, 'This approval no longer exists.') }));
    }
  }

  paintGrants(grants) {
    const now = Date.now();
    const live = grants.filter((g) => !g.revoked && g.expires_at_ms > now);
    if (live.length === 0) {
      replace(this.grants, h('li', { class: 'empty', text: 'No standing permissions. Every consequential action asks you first.' }));
      return;
    }
    replace(this.grants, live.map((g) => {
      const note = h('span', { class: 'grant-error', role: 'alert' });
      const button = h('button', {
        type: 'button', text: 'Revoke', 'aria-label': `Revoke permission for ${g.tool}`,
        on: { click: () => this.revoke(g, button, note) },
      });
      return h('li', { class: 'grant', 'data-grant': g.id },
        h('span', { class: 'tool-name', text: g.tool }), ' in ',
        h('a', { href: `#/chat/${g.conversation}`, text: g.conversation }),
        h('span', { class: 'muted' }, ' until ', when(g.expires_at_ms)), ' ', button, note);
    }));
  }

  async revoke(grant, button, note) {
    button.disabled = true;
    try {
      await del(`/api/v1/grants/${seg(grant.id)}`);
      this.soon();
    } catch (e) {
      button.disabled = false;
      note.textContent = describe(e, 'This permission no longer exists.');
    }
  }
}

export default {
  id: 'approvals',
  nav: 'Approvals',
  href: '#/approvals',
  match: (path) => (path === '/approvals' ? {} : null),
  title: () => 'Approvals',
  render(view) {
    new ApprovalsPage(view).load();
  },
};
