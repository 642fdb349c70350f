// The live event feed, `GET /api/v1/events` through one EventSource for the whole page: every
// turn of this Steward process (whichever surface started it: terminal, API, this page in
// another tab), every change to an approval, messages Steward sent unasked. Pages subscribe
// with `onFeed(type, fn)`; `resync` fires after the feed was lost and is back (or lagged), so
// a view refetches what it shows instead of trusting the events it missed.

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

function open() {
  if (stopped) return;
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
