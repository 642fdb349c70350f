// An approval card in the conversation: what Steward wants to do (the card text the server
// rendered, shown as text), and Confirm / Cancel / Edit through `/api/v1/approvals/{id}/…` —
// the one `ApprovalDesk::resolve` behind them. A confirm sends the revision of the card shown,
// so only what the owner saw can run; a card revised meanwhile comes back and is shown instead.
// A card decided elsewhere (terminal, another tab) loses its buttons as soon as the feed says
// so (`lock`), then shows how it ended (`refresh`).

import { get, post, seg } from '../api.js';
import { h, replace, when } from '../dom.js';
import { describe } from '../errors.js';

const STATUS_TEXT = {
  pending: '',
  confirmed: 'Approved — running…',
  running: 'Approved — running…',
  executed: 'Approved and done.',
  failed: 'Approved, but it failed.',
  cancelled: 'Cancelled — nothing was done.',
  expired: 'Expired without a decision — nothing was done.',
};

const ENDED = new Set(['executed', 'failed', 'cancelled', 'expired']);

let confirmGuard = null;

/**
 * `guard(card)` runs before every Confirm and resolves to `{ok, note}`: when `ok` is false
 * nothing is sent and `note` is shown (the Mini App's biometric check, miniapp/biometric.js).
 */
export function setConfirmGuard(guard) {
  confirmGuard = guard || null;
}

export class ApprovalCard {
  /**
   * @param {object} card an ActionCard (`action_id`, `tool`, `text`, `revision`, `confirmable`,
   *   `expires_at_ms`)
   * @param {{onEdit: () => void}} hooks `onEdit` runs when an edit was asked for (the next
   *   message describes the change)
   */
  constructor(card, hooks) {
    this.id = card.action_id;
    this.hooks = hooks;
    this.generation = 0;
    this.busy = false;
    this.status = 'pending';
    this.el = h('section', { class: 'card', 'data-action': this.id, 'data-status': 'pending' });
    this.show(card, { status: 'pending' });
  }

  /** Paint `card` in state `action` (`{status, outcome?, awaiting_edit?}`). */
  show(card, action, note = '') {
    this.card = card;
    this.status = action.status;
    this.el.dataset.status = action.status;
    const headingId = `card-${this.id}`;
    this.el.setAttribute('aria-labelledby', headingId);
    const pending = action.status === 'pending';
    const buttons = pending ? this.buttons(card) : null;
    const statusText = pending && action.awaiting_edit
      ? 'Waiting for you to describe the change in your next message.'
      : STATUS_TEXT[action.status] ?? action.status;
    replace(
      this.el,
      h('h3', { id: headingId, class: 'card-title' },
        'Approval needed: ', h('span', { class: 'tool-name', text: card.tool })),
      h('pre', { class: 'card-text', text: card.text }),
      pending ? h('p', { class: 'card-expiry' }, 'Expires ', when(card.expires_at_ms), '.') : null,
      pending && !card.confirmable
        ? h('p', { class: 'card-note', text: 'This card is too long to show here whole, so it cannot be confirmed from this page. Decide it from the terminal (steward approvals).' })
        : null,
      h('p', { class: 'card-status', role: 'status', text: statusText }),
      action.outcome && !pending
        ? h('details', { class: 'card-outcome', open: true },
          h('summary', { text: action.status === 'executed' ? 'Result' : 'Details' }),
          h('pre', { text: action.outcome }))
        : null,
      note ? h('p', { class: 'card-error', role: 'alert', text: note }) : null,
      buttons,
    );
  }

  buttons(card) {
    const confirm = h('button', {
      type: 'button', class: 'primary', text: 'Confirm', disabled: !card.confirmable,
      on: { click: () => this.decide('confirm') },
    });
    const cancel = h('button', { type: 'button', text: 'Cancel', on: { click: () => this.decide('cancel') } });
    const edit = h('button', { type: 'button', text: 'Edit', on: { click: () => this.decide('edit') } });
    return h('div', { class: 'card-actions', role: 'group', 'aria-label': `Decide: ${card.tool}` }, confirm, cancel, edit);
  }

  /** Take the buttons away now (decided elsewhere); `refresh` then shows the outcome. */
  lock() {
    const actions = this.el.querySelector('.card-actions');
    if (actions) actions.remove();
  }

  async decide(decision) {
    if (this.busy) return;
    this.busy = true;
    const mine = ++this.generation;
    const card = this.card;
    this.lockButtons(true);
    let guardNote = '';
    if (decision === 'confirm' && confirmGuard) {
      const checked = await confirmGuard(card).catch(() => ({ ok: false, note: 'The check failed; nothing was sent.' }));
      if (!checked.ok) {
        this.setStatus(checked.note || 'Not confirmed.');
        this.lockButtons(false);
        this.busy = false;
        return;
      }
      guardNote = checked.note || '';
    }
    this.setStatus(decision === 'confirm' ? 'Approved — running…' : 'Sending…');
    const path = `/api/v1/approvals/${seg(this.id)}/${decision}`;
    const body = decision === 'confirm' ? { revision: card.revision } : {};
    try {
      const res = await post(path, body);
      if (this.land(mine, res.card || card, res.action, guardNote) && decision === 'edit') this.hooks.onEdit();
    } catch (e) {
      const current = e.body && e.body.action;
      if (e.status === 409 && current) {
        // Stale: the current card, to decide again. Conflict: decided meanwhile.
        this.land(mine, (e.body && e.body.card) || card, current, describe(e));
      } else {
        this.land(mine, card, { status: this.status }, describe(e, 'This approval no longer exists.'));
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * Paint an answer to request `mine` unless a newer request was made since — but an ended
   * action always paints (nothing newer can undo it). Whether it painted.
   */
  land(mine, card, action, note = '') {
    if (mine !== this.generation && !ENDED.has(action.status)) return false;
    if (ENDED.has(this.status) && !ENDED.has(action.status)) return false;
    this.generation++;
    this.show(card, action, note);
    return true;
  }

  lockButtons(disabled) {
    for (const b of this.el.querySelectorAll('.card-actions button')) b.disabled = disabled;
  }

  setStatus(text) {
    const s = this.el.querySelector('.card-status');
    if (s) s.textContent = text;
  }

  /** Read the action again and show how it stands. */
  async refresh() {
    const mine = ++this.generation;
    try {
      const res = await get(`/api/v1/approvals/${seg(this.id)}`);
      this.land(mine, res.card || this.card, res.action);
    } catch (e) {
      this.land(mine, this.card, { status: this.status }, describe(e, 'This approval no longer exists.'));
    }
  }
}
