// One open conversation: its history (`GET /api/v1/conversations/{id}`, with the approvals
// still pending in it), the composer, sending (`POST /api/v1/messages` as SSE, painted as it
// streams), Stop (`POST …/cancel`), and turns, cards and messages that arrive on the feed from
// elsewhere. A turn has one painter and one source: this page's own stream paints its turn,
// and the feed's copy of that same turn (same turn id) is dropped — "no second painter".
// A thread that was closed (another conversation opened) paints nothing more.

import { get, post, seg, stream } from '../api.js';
import { h, replace } from '../dom.js';
import { describe } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import { ApprovalCard } from './card.js';
import { frameEvent } from './fold.js';
import { isActionNote, paintHistory, userMessage } from './history.js';
import { TurnPainter } from './turn.js';

const ENDS = new Set(['final', 'failed']);
/** Surfaces worth naming on a turn that did not start on this page. */
const SOURCES = { cli: 'the terminal', telegram: 'Telegram', openai_api: 'the OpenAI-compatible API', system: 'Steward itself' };
/** Approval events after which a card still waits for a decision. */
const STILL_PENDING = new Set(['created', 'revise', 'revised', 'edit_requested']);

export class Thread {
  /**
   * @param {string} id the conversation
   * @param {{fresh: boolean, title: string, turnEnded: () => void}} opts `fresh`: made on this
   *   page and not yet stored, so "not found" means empty
   */
  constructor(id, opts) {
    this.id = id;
    this.opts = opts;
    this.closed = false;
    this.loading = false;
    this.historyGen = 0;
    this.cards = new Map();
    this.local = null; // {painter, controller, turnId}
    this.localTurnIds = new Set();
    this.feedTurn = null; // {turnId, painter, buffer, suppressed, ended}
    this.early = [];
    this.reloadAfterTurn = false;
    this.build();
  }

  build() {
    this.titleEl = h('h1', { class: 'thread-title', text: this.opts.title });
    this.messagesEl = h('div', { class: 'messages', role: 'log', 'aria-live': 'polite', 'aria-labelledby': 'thread-title' });
    this.titleEl.id = 'thread-title';
    this.earlierEl = h('div', { class: 'earlier' });
    this.errorEl = h('p', { class: 'error', role: 'alert', hidden: true });
    this.input = h('textarea', { id: 'composer', rows: 3, autocomplete: 'off', placeholder: 'Write to Steward…',
      on: { keydown: (ev) => {
        if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
          ev.preventDefault();
          this.form.requestSubmit();
        }
      } } });
    this.sendBtn = h('button', { type: 'submit', class: 'primary', text: 'Send' });
    this.stopBtn = h('button', { type: 'button', class: 'danger', text: 'Stop', hidden: true,
      on: { click: () => this.stop() } });
    this.form = h('form', { class: 'composer', on: { submit: (ev) => {
      ev.preventDefault();
      this.send();
    } } },
    h('label', { for: 'composer', text: 'Message' }),
    this.input,
    h('div', { class: 'row composer-actions' },
      h('span', { class: 'hint', text: 'Enter sends, Shift+Enter starts a new line.' }),
      this.stopBtn, this.sendBtn));
    this.el = h('section', { class: 'thread', 'aria-labelledby': 'thread-title' },
      h('div', { class: 'thread-head' },
        h('a', { class: 'back', href: '#/chat', text: '‹ All conversations' }),
        this.titleEl),
      this.earlierEl, this.messagesEl, this.errorEl, this.form);
  }

  setTitle(text) {
    this.titleEl.textContent = text;
  }

  focusComposer() {
    this.input.focus();
  }

  close() {
    this.closed = true;
    if (this.local) this.local.controller.abort();
  }

  running() {
    return Boolean(this.local) || Boolean(this.feedTurn && !this.feedTurn.suppressed && !this.feedTurn.ended);
  }

  updateButtons() {
    this.stopBtn.hidden = !this.running();
    this.sendBtn.disabled = Boolean(this.local);
  }

  showError(text) {
    this.errorEl.textContent = text;
    this.errorEl.hidden = !text;
  }

  // --- history -------------------------------------------------------------------------

  async load() {
    const mine = ++this.historyGen;
    this.loading = true;
    replace(this.messagesEl, h('p', { class: 'muted', text: 'Loading the conversation…' }));
    try {
      const [history, pending] = await Promise.all([
        get(`/api/v1/conversations/${seg(this.id)}?limit=200`),
        get('/api/v1/approvals?limit=500').catch(() => null),
      ]);
      if (this.closed || mine !== this.historyGen) return;
      this.showError('');
      this.cards.clear();
      replace(this.messagesEl);
      paintHistory(this.messagesEl, history.messages);
      this.paintEarlierButton(history.next_before);
      const waiting = pending ? pending.actions.filter((a) => a.action.conversation === this.id) : [];
      for (const { card } of waiting) this.placeCard(card, this.messagesEl);
      if (history.messages.length === 0 && waiting.length === 0) this.paintEmpty();
    } catch (e) {
      if (this.closed || mine !== this.historyGen) return;
      replace(this.messagesEl);
      if (e.status === 404 && this.opts.fresh) this.paintEmpty();
      else if (e.status === 404) this.showError('This conversation does not exist (it may have been deleted). Start a new one from the list.');
      else this.showError(describe(e));
    } finally {
      if (!this.closed && mine === this.historyGen) {
        this.loading = false;
        for (const d of this.early.splice(0)) this.onFeedTurn(d);
      }
    }
  }

  paintEmpty() {
    this.messagesEl.append(h('p', { class: 'empty muted', text: 'Nothing here yet. Write below to start.' }));
  }

  paintEarlierButton(before) {
    replace(this.earlierEl, before === null || before === undefined ? null
      : h('button', { type: 'button', class: 'quiet', text: 'Show earlier messages',
        on: { click: (ev) => this.loadEarlier(before, ev.currentTarget) } }));
  }

  async loadEarlier(before, button) {
    button.disabled = true;
    try {
      const page = await get(`/api/v1/conversations/${seg(this.id)}?limit=200&before=${before}`);
      if (this.closed) return;
      const older = document.createDocumentFragment();
      paintHistory(older, page.messages);
      this.messagesEl.prepend(older);
      this.paintEarlierButton(page.next_before);
    } catch (e) {
      button.disabled = false;
      this.showError(describe(e));
    }
  }

  // --- sending -------------------------------------------------------------------------

  async send() {
    const text = this.input.value;
    if (this.local || !text.trim()) return;
    this.input.value = '';
    this.showError('');
    this.messagesEl.querySelector('.empty')?.remove();
    this.messagesEl.append(h('article', { class: 'msg user', 'aria-label': 'You' }, h('p', { class: 'msg-text', text })));
    const painter = this.painter('');
    this.messagesEl.append(painter.el);
    painter.el.scrollIntoView({ block: 'nearest' });
    const controller = new AbortController();
    this.local = { painter, controller, turnId: null };
    this.updateButtons();
    let started = false;
    try {
      const events = stream('/api/v1/messages', { conversation_id: this.id, text }, { signal: controller.signal });
      for await (const { event, data } of events) {
        if (this.closed) return;
        const ev = frameEvent(event, data);
        if (ev.type === 'started') {
          started = true;
          this.localStarted(ev.turn_id);
        }
        painter.apply(ev);
        if (painter.ended) break;
      }
      painter.close();
    } catch (e) {
      if (this.closed || e.name === 'AbortError') return;
      painter.fail(e);
      // Refused before it started: nothing was stored, so the words come back to the composer.
      if (!started && !this.input.value) this.input.value = text;
    } finally {
      if (!this.closed) {
        this.local = null;
        this.flushFeedBuffer(null);
        this.updateButtons();
        this.afterTurn();
      }
    }
  }

  async stop() {
    this.stopBtn.disabled = true;
    try {
      await post(`/api/v1/conversations/${seg(this.id)}/cancel`, {});
    } catch (e) {
      if (!this.closed) this.showError(describe(e));
    } finally {
      this.stopBtn.disabled = false;
    }
  }

  painter(surface) {
    const source = SOURCES[surface] || '';
    return new TurnPainter({
      placeCard: (card, into) => this.placeCard(card, into),
      ended: () => this.updateButtons(),
    }, source);
  }

  /** One element per action, wherever it was first seen; a later sighting moves it. */
  placeCard(card, into) {
    let view = this.cards.get(card.action_id);
    if (!view) {
      view = new ApprovalCard(card, { onEdit: () => this.focusComposer() });
      this.cards.set(card.action_id, view);
    }
    into.append(view.el);
  }

  afterTurn() {
    this.opts.turnEnded();
    if (this.reloadAfterTurn && !this.running()) {
      this.reloadAfterTurn = false;
      this.load();
    }
  }

  // --- the feed ------------------------------------------------------------------------

  /** Our own stream's turn started: the feed's copy of it (same id) is dropped. */
  localStarted(turnId) {
    this.local.turnId = turnId;
    this.localTurnIds.add(turnId);
    const ft = this.feedTurn;
    if (ft && ft.buffer && ft.turnId === turnId) {
      ft.buffer = null;
      ft.suppressed = true;
      if (ft.ended) this.feedTurn = null;
    } else {
      this.flushFeedBuffer(this.local.painter.el);
    }
  }

  /** Paint a feed turn held back while our own stream had not said which turn it is. */
  flushFeedBuffer(before) {
    const ft = this.feedTurn;
    if (!ft || !ft.buffer) return;
    const events = ft.buffer;
    ft.buffer = null;
    ft.painter = this.painter(ft.surface);
    if (before) before.before(ft.painter.el);
    else this.messagesEl.append(ft.painter.el);
    for (const ev of events) ft.painter.apply(ev);
    if (ft.ended) this.feedTurn = null;
  }

  /** A `turn` event of the feed (`{conversation_id, surface, event}`). */
  onFeedTurn(d) {
    if (this.closed || d.conversation_id !== this.id) return;
    if (this.loading) {
      this.early.push(d);
      return;
    }
    const ev = d.event;
    if (ev.type === 'started') {
      const ours = this.localTurnIds.has(ev.turn_id);
      // Our stream has not named its turn yet: hold this one until it does.
      const hold = !ours && this.local && !this.local.turnId;
      this.feedTurn = { turnId: ev.turn_id, surface: d.surface, painter: null, buffer: hold ? [ev] : null, suppressed: ours, ended: false };
      if (!ours && !hold) this.startFeedPainter(ev);
      this.updateButtons();
      return;
    }
    let ft = this.feedTurn;
    if (!ft) {
      // Joined mid-turn; while our own turn streams, its events are ours.
      if (this.local && this.local.turnId) return;
      ft = this.feedTurn = { turnId: null, surface: d.surface, painter: null, buffer: null, suppressed: false, ended: false };
      this.startFeedPainter(null);
    }
    if (ENDS.has(ev.type)) ft.ended = true;
    if (ft.buffer) ft.buffer.push(ev);
    else if (ft.painter) ft.painter.apply(ev);
    if (ft.ended && !ft.buffer) {
      this.feedTurn = null;
      if (!ft.suppressed) {
        // The message may not have been stored yet when the turn started.
        if (ft.painter) this.showQuestion(ft.painter.el);
        this.afterTurn();
      }
    }
    this.updateButtons();
  }

  startFeedPainter(startedEvent) {
    const ft = this.feedTurn;
    this.messagesEl.querySelector('.empty')?.remove();
    ft.painter = this.painter(ft.surface);
    this.messagesEl.append(ft.painter.el);
    if (startedEvent) ft.painter.apply(startedEvent);
    this.showQuestion(ft.painter.el);
  }

  /**
   * The feed carries a turn's events, not the message that started it: read the newest
   * stored messages and, when the last of the owner's is not shown yet, put it above the
   * turn (asked when the turn starts and again when it ends).
   */
  async showQuestion(before) {
    try {
      const page = await get(`/api/v1/conversations/${seg(this.id)}?limit=3`);
      if (this.closed || !before.isConnected) return;
      const asked = [...page.messages].reverse().find((m) => m.role === 'user');
      if (!asked || isActionNote(asked)) return;
      if (this.messagesEl.querySelector(`[data-seq="${asked.seq}"]`)) return;
      before.before(userMessage(asked));
    } catch {
      // The answer shows without its question; a reload has both.
    }
  }

  /** An `approval` event of the feed. */
  onFeedApproval(d) {
    if (this.closed) return;
    const view = this.cards.get(d.action_id);
    if (view) {
      if (!STILL_PENDING.has(d.event)) view.lock();
      view.refresh();
      return;
    }
    if (d.conversation_id !== this.id || d.event !== 'created') return;
    // Usually the turn's own stream shows it in a moment; if not (raised by another
    // process), fetch it.
    setTimeout(async () => {
      if (this.closed || this.cards.has(d.action_id)) return;
      try {
        const res = await get(`/api/v1/approvals/${seg(d.action_id)}`);
        if (this.closed || this.cards.has(d.action_id) || res.action.status !== 'pending') return;
        this.placeCard(res.card, this.messagesEl);
      } catch {
        // Gone already: nothing to show.
      }
    }, 400);
  }

  /** A `delivered` event: Steward spoke unasked in this conversation. */
  onFeedDelivered(d) {
    if (this.closed || d.conversation_id !== this.id || this.loading) return;
    this.messagesEl.append(h('article', { class: 'msg assistant', 'aria-label': 'Steward' },
      h('div', { class: 'turn-text' }, renderMarkdown(d.text))));
  }

  /** The feed was lost and is back: what it missed is in the history. */
  resync() {
    if (this.closed) return;
    if (this.running()) this.reloadAfterTurn = true;
    else this.load();
  }
}
