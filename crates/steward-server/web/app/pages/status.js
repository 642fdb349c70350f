// The Status page, `#/status`: `GET /api/v1/status` painted by status/paint.js, with the
// number of days of usage to show (7, 30 or 90; choosing refetches) and a Refresh button.
// Only the newest request paints: choosing again aborts the older request, and an answer
// that still arrives late (or after the page was left) is dropped by its generation.

import { get } from '../api.js';
import { h, replace } from '../dom.js';
import { describe } from '../errors.js';
import { mcpServers, overview, recentErrors, usage } from '../status/paint.js';

const DAY_CHOICES = [7, 30, 90];
const DEFAULT_DAYS = 30;

export default {
  id: 'status',
  nav: 'Status',
  href: '#/status',
  match: (path) => (path === '/status' ? {} : null),
  title: () => 'Status',

  render(view) {
    let generation = 0;
    let inFlight = null;
    const content = h('div', { class: 'status-content', 'aria-busy': 'true' },
      h('p', { class: 'muted', text: 'Loading the status…' }));
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const days = h('select', { id: 'status-days', on: { change: () => load() } },
      DAY_CHOICES.map((n) => h('option', { value: String(n), selected: n === DEFAULT_DAYS || null, text: `${n} days` })));
    const refresh = h('button', { type: 'button', text: 'Refresh', on: { click: () => load() } });

    async function load() {
      const mine = ++generation;
      inFlight?.abort();
      const controller = new AbortController();
      inFlight = controller;
      const stop = () => controller.abort();
      view.signal.addEventListener('abort', stop, { once: true });
      content.setAttribute('aria-busy', 'true');
      try {
        const s = await get(`/api/v1/status?days=${encodeURIComponent(days.value)}`, { signal: controller.signal });
        if (!view.alive() || mine !== generation) return;
        error.hidden = true;
        replace(content, overview(s), usage(s.usage), mcpServers(s.mcp), recentErrors(s.recent_errors));
        content.dataset.days = String(s.usage.days.length);
      } catch (e) {
        if (!view.alive() || mine !== generation) return;
        error.textContent = describe(e, 'The status page is not there on this server.');
        error.hidden = false;
      } finally {
        view.signal.removeEventListener('abort', stop);
        if (mine === generation) content.setAttribute('aria-busy', 'false');
      }
    }

    view.root.append(
      h('div', { class: 'status-head' },
        h('h1', { text: 'Status' }),
        h('div', { class: 'row status-controls' },
          h('label', { for: 'status-days', text: 'Usage shown for' }), days, refresh)),
      error, content);
    load();
  },
};
