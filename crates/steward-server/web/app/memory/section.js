// One section of the Memory page: a heading, a sentence about what it holds, its own
// controls (search, filters), and a list read from one `/api/v1` route. Each read has a
// generation: only the newest one paints, and nothing paints once the page was left, so a
// slow answer to an older filter never covers a newer one. Rows are built by the section's
// `row(item, section)`; every stored text goes in as text (dom.js `h`).

import { get } from '../api.js';
import { h, replace } from '../dom.js';
import { describe } from '../errors.js';

export class ListSection {
  /**
   * @param {object} view the page's lifetime (router.js View)
   * @param {{id: string, title: string, intro: string, empty: string,
   *   controls?: HTMLElement[], url: () => string, items: (body: any) => any[],
   *   filter?: (item: any) => boolean, row: (item: any, section: ListSection) => HTMLElement}} spec
   */
  constructor(view, spec) {
    this.view = view;
    this.spec = spec;
    this.generation = 0;
    this.items = [];
    this.list = h('ul', { class: 'memory-list', 'aria-labelledby': `${spec.id}-title` });
    this.status = h('p', { class: 'memory-status', role: 'status' });
    this.el = h('section', { class: `memory-section memory-${spec.id}`, 'aria-labelledby': `${spec.id}-title` },
      h('h2', { id: `${spec.id}-title`, text: spec.title }),
      h('p', { class: 'muted', text: spec.intro }),
      spec.controls ? h('div', { class: 'memory-controls' }, ...spec.controls) : null,
      this.status,
      this.list);
  }

  /** Read the list again (after a change, or a new filter). */
  async load() {
    const mine = ++this.generation;
    this.status.textContent = 'Loading…';
    let body;
    try {
      body = await get(this.spec.url(), { signal: this.view.signal });
    } catch (e) {
      if (mine !== this.generation || !this.view.alive()) return;
      this.status.textContent = describe(e);
      return;
    }
    if (mine !== this.generation || !this.view.alive()) return;
    this.status.textContent = '';
    this.items = this.spec.items(body);
    this.paint();
  }

  /** Paint the items the filter keeps (no request). */
  paint() {
    const shown = this.spec.filter ? this.items.filter(this.spec.filter) : this.items;
    if (shown.length === 0) {
      replace(this.list, h('li', { class: 'empty', text: this.items.length ? 'Nothing matches that search.' : this.spec.empty }));
      return;
    }
    replace(this.list, shown.map((item) => this.spec.row(item, this)));
  }
}

/** A row's button bar. */
export function actions(...buttons) {
  return h('div', { class: 'row-actions' }, ...buttons);
}

/** A button with visible words and, where the words alone are ambiguous, a fuller name. */
export function button(text, label, onClick, cls = '') {
  return h('button', { type: 'button', class: cls || null, text, 'aria-label': label, on: { click: onClick } });
}
