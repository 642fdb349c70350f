// The fold of one turn's events into what the page shows — the same fold as steward-core's
// `TurnView::apply` (text, each tool call with what it touched and how it ended, the cards, one
// end), so the page keeps no bookkeeping of its own ("the client projects; no second
// painter"). Pure: no DOM, so Node's tests fold steward-testkit's pinning turn through it.
//
// Events are the TurnEvent JSON the server sends (`{"type": "text_delta", "text": …}`), from
// `POST /api/v1/messages` as SSE or inside the feed's `turn` events.

/**
 * @typedef {{call_id: string, name: string, touched: string|null, arguments: string,
 *   status: 'running'|'ok'|'failed', output: string|null}} ToolView
 * @typedef {{type: 'started'} | {type: 'text', text: string} | {type: 'tool_started', index: number}
 *   | {type: 'tool_finished', index: number} | {type: 'card', index: number}
 *   | {type: 'ended'} | {type: 'ignored'}} Change
 */

export class TurnFold {
  constructor() {
    this.turnId = null;
    /** The answer streamed so far; the whole answer once ended with `final`. */
    this.text = '';
    /** @type {ToolView[]} in the order they started */
    this.tools = [];
    /** ActionCards in the order they were raised. */
    this.cards = [];
    /** null while running; then {type: 'final', text, usage, model} | {type: 'failed', kind,
     * message, retryable} | {type: 'vanished'} */
    this.end = null;
  }

  /** Fold one event in; what it changed. @returns {Change} */
  apply(event) {
    if (this.end) return { type: 'ignored' };
    switch (event.type) {
      case 'started':
        this.turnId = event.turn_id;
        return { type: 'started' };
      case 'text_delta':
        this.text += event.text;
        return { type: 'text', text: event.text };
      case 'tool_started':
        this.tools.push({
          call_id: event.call_id,
          name: event.name,
          touched: event.touched ?? null,
          arguments: event.arguments ?? '',
          status: 'running',
          output: null,
        });
        return { type: 'tool_started', index: this.tools.length - 1 };
      case 'tool_finished': {
        const status = event.ok ? 'ok' : 'failed';
        // A finish without its start (a replayed or trimmed stream) still shows.
        let i = this.tools.findIndex((t) => t.call_id === event.call_id && t.status === 'running');
        if (i < 0) {
          this.tools.push({
            call_id: event.call_id, name: event.name, touched: null, arguments: '', status, output: null,
          });
          i = this.tools.length - 1;
        }
        this.tools[i].status = status;
        this.tools[i].output = event.output;
        return { type: 'tool_finished', index: i };
      }
      case 'approval_required':
        this.cards.push(event.card);
        return { type: 'card', index: this.cards.length - 1 };
      case 'final':
        this.text = event.text;
        this.end = { type: 'final', text: event.text, usage: event.usage, model: event.model };
        return { type: 'ended' };
      case 'failed':
        this.end = { type: 'failed', kind: event.kind, message: event.message, retryable: event.retryable };
        return { type: 'ended' };
      default:
        // A newer server's event this page does not know: nothing to paint.
        return { type: 'ignored' };
    }
  }

  /** The stream closed: without a terminal event the turn vanished. */
  close() {
    if (!this.end) this.end = { type: 'vanished' };
  }
}

/**
 * The TurnEvent an SSE frame of `POST /api/v1/messages` carries: the event itself, or, for the
 * server's `event: error` (the turn's channel closed early), a failure.
 */
export function frameEvent(name, data) {
  if (name === 'error') {
    const e = (data && data.error) || {};
    return { type: 'failed', kind: e.kind || 'internal', message: e.message || '', retryable: true };
  }
  return data;
}
