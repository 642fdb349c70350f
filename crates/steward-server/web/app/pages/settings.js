// The Settings page, `#/settings`: every runtime setting from `GET /api/v1/settings`, each
// its own form (settings/field.js: saved or reset one at a time, checked by the registry's
// own rule on the server, in force from the next message), then the signed-in browsers
// (settings/sessions.js). No secret is a runtime setting, so none is ever on this page.

import { get } from '../api.js';
import { h, replace } from '../dom.js';
import { describe } from '../errors.js';
import { SettingField } from '../settings/field.js';
import { SessionList } from '../settings/sessions.js';

export default {
  id: 'settings',
  nav: 'Settings',
  href: '#/settings',
  match: (path) => (path === '/settings' ? {} : null),
  title: () => 'Settings',

  render(view) {
    const fields = h('div', { class: 'settings-fields', 'aria-busy': 'true' },
      h('p', { class: 'muted', text: 'Loading the settings…' }));
    const sessions = new SessionList(view);
    view.root.append(h('div', { class: 'settings' },
      h('h1', { text: 'Settings' }),
      h('p', { class: 'muted', text: 'These change while Steward runs: a saved value is checked by the same rule as the configuration file, kept across restarts, and used from the next message. An environment variable always wins over a value set here.' }),
      h('section', { class: 'settings-section', 'aria-labelledby': 'settings-title' },
        h('h2', { id: 'settings-title', text: 'Runtime settings' }),
        fields),
      sessions.el));

    (async () => {
      try {
        const body = await get('/api/v1/settings', { signal: view.signal });
        if (!view.alive()) return;
        replace(fields, body.settings.length
          ? body.settings.map((s) => new SettingField(s).el)
          : h('p', { class: 'muted', text: 'No setting can be changed while Steward runs.' }));
      } catch (e) {
        if (!view.alive()) return;
        replace(fields, h('p', { class: 'error', role: 'alert', text: describe(e, 'Settings cannot be changed on this server.') }));
      } finally {
        fields.setAttribute('aria-busy', 'false');
      }
    })();
    sessions.refresh();
  },
};
