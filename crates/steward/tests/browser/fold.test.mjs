// The page's own modules without a browser: the turn fold shows exactly what every other
// surface shows for steward-testkit's pinning turn (browser.rs writes it, as the server
// serialises it, to PINNING_JSON), and the SSE reader frames events split anywhere, with LF,
// CRLF or CR line ends, comments and multi-line data.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TurnFold, frameEvent } from '../../../steward-server/web/app/chat/fold.js';
import { EventParser } from '../../../steward-server/web/app/sse.js';

test('the fold shows the pinning turn as every surface does', () => {
  const pinned = JSON.parse(readFileSync(process.env.PINNING_JSON, 'utf8'));
  const fold = new TurnFold();
  const changes = pinned.events.map((e) => fold.apply(e).type);
  assert.equal(fold.text, pinned.text);
  assert.deepEqual(fold.tools.map((t) => [t.name, t.status === 'ok', t.touched]), pinned.tools);
  assert.deepEqual(fold.cards.map((c) => c.action_id), [pinned.card]);
  assert.equal(fold.end.type, 'final');
  assert.equal(changes[0], 'started');
  assert.equal(changes.at(-1), 'ended');
  // Nothing after the end changes it.
  assert.equal(fold.apply({ type: 'text_delta', text: 'late' }).type, 'ignored');
  assert.equal(fold.text, pinned.text);
});

test('a finish without its start still shows, and a stream that closes early vanished', () => {
  const fold = new TurnFold();
  fold.apply({ type: 'tool_finished', call_id: 'c9', name: 'db_query', ok: false, output: 'no' });
  assert.deepEqual(fold.tools.map((t) => [t.name, t.status, t.output]), [['db_query', 'failed', 'no']]);
  fold.close();
  assert.equal(fold.end.type, 'vanished');
});

test("the server's error frame is a failure, other frames are their event", () => {
  assert.deepEqual(frameEvent('error', { error: { kind: 'internal', message: 'gone' } }),
    { type: 'failed', kind: 'internal', message: 'gone', retryable: true });
  const ev = { type: 'text_delta', text: 'x' };
  assert.equal(frameEvent('text_delta', ev), ev);
});

function frames(chunks) {
  const p = new EventParser();
  return [...chunks.flatMap((c) => p.push(c)), ...p.finish()];
}

test('SSE framing survives any split and every line ending', () => {
  const raw = ': keep-alive\r\nevent: started\r\ndata: {"a":1}\r\n\r\nevent: text_delta\ndata: line one\ndata: line two\n\nevent: final\rdata: {}\r\r';
  const want = [
    { event: 'started', data: '{"a":1}' },
    { event: 'text_delta', data: 'line one\nline two' },
    { event: 'final', data: '{}' },
  ];
  assert.deepEqual(frames([raw]), want);
  // Every split point, CRLF halves included.
  for (let i = 1; i < raw.length; i++) {
    assert.deepEqual(frames([raw.slice(0, i), raw.slice(i)]), want, `split at ${i}`);
  }
  assert.deepEqual(frames([...raw]), want, 'one character at a time');
});

test('an event without its blank line is not dispatched, and data-less events are none', () => {
  assert.deepEqual(frames(['event: x\n\n', 'data: cut']), []);
  assert.deepEqual(frames(['data:no-space\n\n']), [{ event: 'message', data: 'no-space' }]);
});
