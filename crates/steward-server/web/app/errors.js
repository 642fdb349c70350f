// Every failure the page shows, as a sentence a person understands: the API's error kinds and
// statuses, a failed turn's kinds, and the network itself. The server's own message (written
// for developers) is added only where it says what to fix (a refused input).

/** An API call that did not succeed. `kind` is the server's error kind ('network' when the
 * server could not be reached at all). */
export class ApiError extends Error {
  constructor(status, kind, message, body = null) {
    super(message || kind);
    this.status = status;
    this.kind = kind;
    this.body = body;
  }
}

const BY_KIND = {
  network: 'Steward could not be reached. Check that it is running and that this device can reach it, then try again.',
  unauthorized: 'You are not signed in (or your sign-in has ended). Sign in again.',
  bad_credentials: 'That password or token is not right.',
  too_many_attempts: 'Too many sign-in attempts. Wait a few minutes, then try again.',
  csrf: 'This page lost track of your sign-in. Reload the page and try again.',
  busy: 'Steward is still answering in this conversation. Stop the answer or wait for it, then try again.',
  stale_card: 'This approval changed since it was shown. Check the new version before you confirm it.',
  conflict: 'This approval was already decided, so nothing more was done.',
  revision_required: 'This page sent an approval without saying which version it showed. Reload the page and try again.',
  payload_too_large: 'That is too long for Steward to take. Shorten it and try again.',
  unavailable: 'That part of Steward is switched off on this server.',
  method_not_allowed: 'This page asked Steward for something it does not do. Reload the page; if it keeps happening, the page and the server are out of step.',
  internal: 'Something went wrong inside Steward. The server log has the details.',
  // A failed turn's kinds (TurnEvent::Failed).
  no_model: 'No model is set up, so Steward cannot answer. Set one in the configuration and try again.',
  model: 'The model service did not answer. Try again in a moment.',
  model_rejected: 'The model service refused this message. Rephrasing or shortening it may help.',
  model_config: 'The model service refused Steward’s setup (its key or model name). The owner has to fix the configuration.',
  budget: 'This answer took too long or too many steps, so Steward stopped it.',
  store: 'Steward could not save to its database. The server log has the details.',
  shutdown: 'Steward is shutting down. Try again once it is back.',
  input: 'Steward could not take that message.',
  cancelled: 'Stopped.',
  unsupported: 'The model in use cannot take this kind of attachment.',
  too_large: 'That is too large for Steward to take.',
};

/**
 * The sentence for `err` (an ApiError, a failed turn's `{kind, message}`, or anything thrown).
 * @param {string} [notFound] what a 404 means where the call was made
 */
export function describe(err, notFound = 'That is no longer there. It may have been deleted elsewhere.') {
  if (err && err.name === 'AbortError') return 'Cancelled.';
  const kind = err && err.kind;
  const status = err && err.status;
  if (status === 404 || kind === 'not_found') return notFound;
  if ((status === 400 || status === 422 || kind === 'bad_request' || kind === 'invalid' ||
       kind === 'invalid_request') && err.message) {
    return `Steward refused that: ${err.message}`;
  }
  if (kind && BY_KIND[kind]) return BY_KIND[kind];
  if (status === 401) return BY_KIND.unauthorized;
  if (status === 403) return BY_KIND.csrf;
  if (status === 429) return 'Steward is busy. Wait a moment and try again.';
  if (status >= 500) return BY_KIND.internal;
  if (status) return `Steward could not do that (error ${status}).`;
  return 'Something went wrong in this page. Reload it and try again.';
}
