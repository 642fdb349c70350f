// Painting one assistant turn as its events arrive: the answer (markdown, re-rendered at most
// once a frame while it streams), each tool call with what it touched and how it ended, the
// approval cards it raised, and how it ended. It paints only what the fold (`fold.js`) says
// changed. Tool names, arguments, results and errors are text, never markup.

import { h, replace } from '../dom.js';
import { describe } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import { TurnFold } from './fold.js';

const TOOL_STATUS = { running: 'running…', ok: 'done', failed: 'failed' };

export class TurnPainter {
  /**
   * @param {{placeCard: (card: object, into: HTMLElement) => void, ended?: (fold: TurnFold) => void}} hooks
   *   `placeCard` shows a card inside this turn (the thread keeps one card element per action,
   *   wherever it was first seen); `ended` runs once when the turn ends.
   * @param {string} [source] where the turn came from, when not this page (`cli`, `http`…)
   */
  constructor(hooks, source = '') {
    this.hooks = hooks;
    this.fold = new TurnFold();
    this.textEl = h('div', { class: 'turn-text' });
    this.toolsEl = h('ul', { class: 'tools', 'aria-label': 'Tools used', hidden: true });
    this.cardsEl = h('div', { class: 'turn-cards' });
    this.endEl = h('p', { class: 'turn-end', hidden: true });
    this.waitingEl = h('p', { class: 'turn-waiting', text: 'Steward is answering…' });
    this.el = h('article', { class: 'msg assistant', 'aria-busy': 'true', 'aria-label': 'Steward' },
      source ? h('p', { class: 'msg-source', text: `Started from ${source}` }) : null,
      this.waitingEl, this.toolsEl, this.textEl, this.cardsEl, this.endEl);
    this.toolEls = [];
    this.frame = 0;
  }

  get ended() {
    return this.fold.end !== null;
  }

  /** Fold and paint one TurnEvent. */
  apply(event) {
    const change = this.fold.apply(event);
    switch (change.type) {
      case 'text':
        this.waitingEl.hidden = true;
        this.paintTextSoon();
        break;
      case 'tool_started':
        this.waitingEl.hidden = true;
        this.paintTool(change.index);
        break;
      case 'tool_finished':
        this.paintTool(change.index);
        break;
      case 'card':
        this.waitingEl.hidden = true;
        this.hooks.placeCard(this.fold.cards[change.index], this.cardsEl);
        break;
      case 'ended':
        this.finish();
        break;
      default:
        break;
    }
  }

  /** The stream closed: a turn without its end vanished. */
  close() {
    if (this.ended) return;
    this.fold.close();
    this.finish();
  }

  /** End without events (the request was refused before the turn started). */
  fail(err) {
    if (this.ended) return;
    this.fold.end = { type: 'failed', kind: err.kind, message: err.message || '', retryable: false };
    this.finish(describe(err));
  }

  paintTextSoon() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paintText();
    });
  }

  paintText() {
    replace(this.textEl, renderMarkdown(this.fold.text));
  }

  paintTool(i) {
    const t = this.fold.tools[i];
    const row = h('li', { class: 'tool', 'data-status': t.status },
      h('span', { class: 'tool-name', text: t.name }),
      t.touched ? h('span', { class: 'tool-touched', text: t.touched }) : null,
      h('span', { class: 'tool-status', text: TOOL_STATUS[t.status] }),
      t.output !== null
        ? h('details', { class: 'tool-output' },
          h('summary', { text: 'Result' }), h('pre', { text: t.output }))
        : null);
    if (this.toolEls[i]) this.toolEls[i].replaceWith(row);
    else this.toolsEl.append(row);
    this.toolEls[i] = row;
    this.toolsEl.hidden = false;
  }

  finish(sentence) {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.waitingEl.hidden = true;
    this.paintText();
    const end = this.fold.end;
    let text = '';
    if (sentence) text = sentence;
    else if (end.type === 'failed') text = describe({ kind: end.kind, message: end.message });
    else if (end.type === 'vanished') text = 'The answer stopped before it was finished. Reload the conversation to see what was kept.';
    if (text) {
      this.endEl.textContent = text;
      this.endEl.hidden = false;
      this.el.dataset.end = end.type === 'failed' ? end.kind || 'failed' : end.type;
    } else {
      this.el.dataset.end = 'final';
    }
    this.el.setAttribute('aria-busy', 'false');
    if (this.hooks.ended) this.hooks.ended(this.fold);
  }
}
