// The live event feed, `GET /api/v1/events` through one EventSource for the whole page: every
// turn of this Steward process (whichever surface started it: terminal, API, this page in
// another tab), every change to an approval, messages Steward sent unasked. Pages subscribe
// with `onFeed(type, fn)`; `resync` fires after the feed was lost and is back (or lagged), so
// a view refetches what it shows instead of trusting the events it missed. A page signed by
// an `Authorization` header (the Telegram Mini App) reads the same stream through `fetch`,
// since an EventSource can only send cookies.

import { authorizationHeader } from './api.js';
import { readEvents } from './sse.js';

const listeners = new Map(); // type → Set<fn>
let source = null;
let retryTimer = null;
let lost = false;
let stopped = true;
let retryMs = 1000;
let checkSignedIn = async () => true;

function emit(type, data) {
  for (const fn of listeners.get(type) || []) {
    try {
      fn(data);
    } catch (e) {
      console.error(e);
    }
  }
}

/**
 * Subscribe to `turn`, `approval`, `delivered`, `resync` or `state` (`{connected}`).
 * Returns the unsubscribe function.
 */
export function onFeed(type, fn) {
  if (!listeners.has(type)) listeners.set(type, new Set());
  listeners.get(type).add(fn);
  return () => listeners.get(type).delete(fn);
}

/** Whether events are arriving now. */
export function connected() {
  return Boolean(source && source.readyState === EventSource.OPEN);
}

/** Open the feed (after sign-in). `stillSignedIn()` is asked before each reconnect. */
export function startFeed(stillSignedIn) {
  checkSignedIn = stillSignedIn;
  stopped = false;
  open();
}

/** Close it (sign-out). */
export function stopFeed() {
  stopped = true;
  clearTimeout(retryTimer);
  if (source) source.close();
  source = null;
}

function dispatch(type, text) {
  if (type === 'lagged') {
    emit('resync', {});
    return;
  }
  if (!['turn', 'approval', 'delivered'].includes(type)) return;
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return;
  }
  emit(type, data);
}

/** The feed over `fetch` with the page's Authorization header; reconnects with backoff. */
async function openSigned(authorization) {
  const controller = new AbortController();
  source = { close: () => controller.abort(), readyState: 0 };
  const mine = source;
  try {
    const response = await fetch('/api/v1/events', {
      headers: { Accept: 'text/event-stream', Authorization: authorization },
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    });
    if (!response.ok || !response.body) throw new Error(`feed refused: ${response.status}`);
    mine.readyState = EventSource.OPEN;
    retryMs = 1000;
    emit('state', { connected: true });
    if (lost) {
      lost = false;
      emit('resync', {});
    }
    for await (const { event, data } of readEvents(response.body)) dispatch(event || 'message', data);
  } catch {
    // Ended, refused or aborted: the same retry as below.
  }
  if (source !== mine || stopped) return;
  lost = true;
  source = null;
  emit('state', { connected: false });
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => open(), retryMs);
  retryMs = Math.min(retryMs * 2, 30000);
}

function open() {
  if (stopped) return;
  const authorization = authorizationHeader();
  if (authorization) {
    openSigned(authorization);
    return;
  }
  const es = new EventSource('/api/v1/events');
  source = es;
  es.addEventListener('open', () => {
    retryMs = 1000;
    emit('state', { connected: true });
    if (lost) {
      lost = false;
      emit('resync', {});
    }
  });
  for (const type of ['turn', 'approval', 'delivered']) {
    es.addEventListener(type, (e) => {
      let data;
      try {
        data = JSON.parse(e.data);
      } catch {
        return;
      }
      emit(type, data);
    });
  }
  es.addEventListener('lagged', () => emit('resync', {}));
  es.addEventListener('error', () => {
    if (source !== es) return;
    lost = true;
    emit('state', { connected: false });
    // The browser retries a dropped stream by itself; a refused one (401, 503) it closes.
    if (es.readyState === EventSource.CLOSED) {
      source = null;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(async () => {
        if (await checkSignedIn().catch(() => true)) open();
      }, retryMs);
      retryMs = Math.min(retryMs * 2, 30000);
    }
  });
}
