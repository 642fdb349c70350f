// The page's one way to reach Steward: the public `/api/v1` routes, as any client uses them.
// Signed in by the session cookie (the browser sends it; the page never sees it), every call
// that changes something carries the session's CSRF token in `X-CSRF-Token`. A 401 anywhere
// tells the shell the sign-in is gone (`onSignedOut`). Errors are `ApiError`s (errors.js).
// The Telegram Mini App signs every call with its `initData` instead (`setAuthorization`).

import { ApiError } from './errors.js';
import { readEvents } from './sse.js';

let csrfToken = null;
let authorization = null;
const signedOutListeners = new Set();

/**
 * An `Authorization` header for every call instead of the session cookie: the Telegram Mini
 * App's `tma <initData>` (miniapp/main.js). Calls then send no cookie.
 */
export function setAuthorization(value) {
  authorization = value || null;
}

/** The `Authorization` header value set by `setAuthorization`, or null (cookie sign-in). */
export function authorizationHeader() {
  return authorization;
}

/** The CSRF token of the current session (from sign-in or `GET /api/v1/session`). */
export function setCsrfToken(token) {
  csrfToken = token || null;
}

/** `fn()` runs whenever a call is refused with 401. */
export function onSignedOut(fn) {
  signedOutListeners.add(fn);
  return () => signedOutListeners.delete(fn);
}

function headers(method, accept, hasBody) {
  const out = { Accept: accept };
  if (hasBody) out['Content-Type'] = 'application/json';
  if (authorization) out.Authorization = authorization;
  else if (csrfToken && !['GET', 'HEAD', 'OPTIONS'].includes(method)) out['X-CSRF-Token'] = csrfToken;
  return out;
}

async function send(method, path, { body, signal, accept = 'application/json', quiet401 = false } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(method, accept, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: authorization ? 'omit' : 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'Steward could not be reached');
  }
  if (!response.ok) {
    const err = await errorOf(response);
    if (response.status === 401 && !quiet401) for (const fn of signedOutListeners) fn(err);
    throw err;
  }
  return response;
}

/** The ApiError for a refused response: `{"error": {"kind"|"code", "message"}}` when JSON. */
async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's page, an empty body): the status says enough.
  }
  const e = (body && body.error) || {};
  const kind = e.kind || e.code || `http_${response.status}`;
  return new ApiError(response.status, kind, typeof e.message === 'string' ? e.message : '', body);
}

/**
 * A JSON call; resolves to the parsed body (null for 204).
 * @param {string} method
 * @param {string} path e.g. `/api/v1/conversations`
 * @param {{body?: any, signal?: AbortSignal, quiet401?: boolean}} [options]
 */
export async function call(method, path, options = {}) {
  const response = await send(method, path, options);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, options) => call('GET', path, options);
export const post = (path, body, options = {}) => call('POST', path, { ...options, body });
export const patch = (path, body, options = {}) => call('PATCH', path, { ...options, body });
export const del = (path, options) => call('DELETE', path, options);

/**
 * POST `body` asking for `text/event-stream`; yields `{event, data}` with `data` parsed.
 * A refusal before the stream starts throws like `call`.
 */
export async function* stream(path, body, { signal } = {}) {
  const response = await send('POST', path, { body, signal, accept: 'text/event-stream' });
  for await (const { event, data } of readEvents(response.body)) {
    let parsed = null;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = { error: { kind: 'internal', message: 'unreadable event' } };
    }
    yield { event, data: parsed };
  }
}

/** `encodeURIComponent` for one path segment. */
export const seg = (s) => encodeURIComponent(s);
