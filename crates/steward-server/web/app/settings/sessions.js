// The signed-in sessions on the Settings page (`GET /api/v1/sessions`): each browser's user
// agent, when it signed in and was last seen, "this browser" for the current one, and Revoke
// (`DELETE /api/v1/sessions/{id}`). Revoking another session refuses that browser from its
// next request; revoking this one signs this page out. Sign out is here too.

import { del, get, seg } from '../api.js';
import { h, replace, when } from '../dom.js';
import { describe } from '../errors.js';
import { signOutHere } from '../shell.js';

export class SessionList {
  /** @param {object} view the page's View (router.js) */
  constructor(view) {
    this.view = view;
    this.generation = 0;
    this.list = h('ul', { class: 'sessions' });
    this.note = h('p', { class: 'setting-note', role: 'status' });
    this.error = h('p', { class: 'error', role: 'alert', hidden: true });
    this.el = h('section', { class: 'sessions-section', 'aria-labelledby': 'sessions-title' },
      h('h2', { id: 'sessions-title', text: 'Signed-in browsers' }),
      h('p', { class: 'muted', text: 'Each browser signed in to Steward. Revoke one you do not recognise or no longer use: it is refused from its next request.' }),
      this.list, this.error, this.note,
      h('div', { class: 'row' }, h('button', { type: 'button', text: 'Sign out of this browser',
        on: { click: (ev) => {
          ev.currentTarget.disabled = true;
          signOutHere();
        } } })));
  }

  async refresh() {
    const mine = ++this.generation;
    try {
      const body = await get('/api/v1/sessions', { signal: this.view.signal });
      if (mine !== this.generation || !this.view.alive()) return;
      this.paint(body.sessions);
    } catch (e) {
      if (mine !== this.generation || !this.view.alive()) return;
      this.error.textContent = describe(e);
      this.error.hidden = false;
    }
  }

  paint(sessions) {
    if (!sessions.length) {
      replace(this.list, h('li', { class: 'muted', text: 'No browser is signed in (this page uses the API token).' }));
      return;
    }
    replace(this.list, sessions.map((s) => {
      const agent = s.user_agent || 'A browser that did not say which it is';
      const revoke = h('button', { type: 'button', class: 'danger', text: 'Revoke',
        'aria-label': s.current ? 'Revoke this browser’s session (signs you out)' : `Revoke the session of ${agent}`,
        on: { click: () => this.revoke(s, revoke) } });
      return h('li', { class: 'session', 'data-id': s.id, 'data-current': s.current ? 'true' : 'false' },
        h('p', { class: 'session-agent' }, h('span', { text: agent }),
          s.current ? h('strong', { class: 'session-current', text: ' — this browser' }) : null),
        h('p', { class: 'session-times muted' }, 'Signed in ', when(s.created_at * 1000), ', last seen ', when(s.last_seen_at * 1000)),
        revoke);
    }));
  }

  async revoke(s, button) {
    button.disabled = true;
    this.error.hidden = true;
    try {
      await del(`/api/v1/sessions/${seg(s.id)}`);
    } catch (e) {
      if (!this.view.alive()) return;
      // Already gone is what was asked for.
      if (e.status !== 404) {
        this.error.textContent = describe(e);
        this.error.hidden = false;
        button.disabled = false;
        return;
      }
    }
    if (!this.view.alive()) return;
    if (s.current) {
      // This browser's own session is gone: the next call is refused and the shell shows
      // the sign-in page.
      this.refresh();
      return;
    }
    this.note.textContent = 'Revoked. That browser is signed out.';
    this.refresh();
  }
}
