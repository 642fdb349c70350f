// Reading Server-Sent Events from a fetch response body (a POST cannot use EventSource): the
// WHATWG framing — lines end in LF, CRLF or CR; `event:` and `data:` fields, several `data:`
// lines joined by LF; a comment line (`:`, the server's keep-alive) is skipped; a blank line
// dispatches. Pure: no DOM, so Node's tests import it too.

/**
 * Yields `{event, data}` (data as text) for each event of `body`, a ReadableStream of bytes.
 * An event cut off by the end of the stream is dropped, as a browser does.
 */
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new EventParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        yield* parser.finish();
        return;
      }
      yield* parser.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/** The framing state between chunks; `push(text)` returns the events it completed. */
export class EventParser {
  constructor() {
    this.buffer = '';
    this.event = '';
    this.data = [];
  }

  push(text) {
    this.buffer += text;
    const out = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const done = this.line(line);
      if (done) out.push(done);
    }
    return out;
  }

  /** The stream ended: a CR held back at the very end was a line end after all. */
  finish() {
    if (!this.buffer.endsWith('\r')) return [];
    this.buffer = this.buffer.slice(0, -1);
    const done = this.line(this.buffer);
    this.buffer = '';
    return done ? [done] : [];
  }

  line(line) {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return null;
      }
      const done = { event: this.event || 'message', data: this.data.join('\n') };
      this.event = '';
      this.data = [];
      return done;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return null;
  }
}
