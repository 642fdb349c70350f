// The sign-in session through `/api/v1/session`: whether this browser is signed in (after a
// reload the CSRF token comes back from `GET`), signing in with the password or the API token
// (the server sets the HttpOnly cookie), and signing out.

import { del, get, post, setCsrfToken } from './api.js';

/** `true` when signed in (the CSRF token is then set), `false` on 401; other errors throw. */
export async function resume() {
  try {
    const s = await get('/api/v1/session', { quiet401: true });
    setCsrfToken(s && s.csrf_token);
    return true;
  } catch (e) {
    if (e.status === 401) {
      setCsrfToken(null);
      return false;
    }
    throw e;
  }
}

/** Sign in with `{password}` or `{token}`; throws an ApiError when refused. */
export async function signIn(credential) {
  const s = await post('/api/v1/session', credential, { quiet401: true });
  setCsrfToken(s && s.csrf_token);
}

/** Sign out; the token is forgotten even when the server could not be told. */
export async function signOut() {
  try {
    await del('/api/v1/session', { quiet401: true });
  } finally {
    setCsrfToken(null);
  }
}
