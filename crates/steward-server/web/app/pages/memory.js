// The Memory page, `#/memory` and `#/memory/KIND`: what Steward keeps about the owner, one
// kind at a time behind a row of links — facts, notes, read-later links, learnings and
// follow-ups (memory/*.js, one ListSection each). Switching kind swaps the section without
// rebuilding the page; a section left paints nothing more (its reads carry the view's
// signal and generation).

import { h, replace } from '../dom.js';
import { factsSection } from '../memory/facts.js';
import { notesSection } from '../memory/notes.js';
import { learningsSection, readLaterSection, remindersSection } from '../memory/kept.js';

const KINDS = [
  ['facts', 'Facts', factsSection],
  ['notes', 'Notes', notesSection],
  ['read-later', 'Read later', readLaterSection],
  ['learnings', 'Learnings', learningsSection],
  ['follow-ups', 'Follow-ups', remindersSection],
];
const PATH = /^\/memory(?:\/(facts|notes|read-later|learnings|follow-ups))?$/;

export default {
  id: 'memory',
  nav: 'Memory',
  href: '#/memory',
  match(path) {
    const m = PATH.exec(path);
    return m ? { kind: m[1] || 'facts' } : null;
  },
  title: () => 'Memory',

  render(view, params) {
    const links = KINDS.map(([id, label]) => h('li', {}, h('a', { href: `#/memory/${id}`, 'data-kind': id, text: label })));
    view.memory = { slot: h('div', { class: 'memory-slot' }), links, kind: null };
    view.root.append(
      h('h1', { text: 'Memory' }),
      h('nav', { class: 'memory-tabs', 'aria-label': 'Kinds of memory' }, h('ul', {}, links)),
      view.memory.slot);
    this.open(view, params);
  },

  update(view, params) {
    if (!view.memory) return false;
    this.open(view, params);
    return true;
  },

  open(view, { kind }) {
    const state = view.memory;
    if (state.kind === kind) return;
    state.kind = kind;
    for (const li of state.links) {
      const a = li.firstChild;
      if (a.dataset.kind === kind) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const [, , make] = KINDS.find(([id]) => id === kind);
    // The section left stops painting: it checks this view's generation of sections.
    const section = make(sectionView(view, state));
    replace(state.slot, section.el);
    section.load();
  },
};

/** A lifetime for one section: alive while the page is and while it is the section shown. */
function sectionView(view, state) {
  const kind = state.kind;
  return {
    get signal() {
      return view.signal;
    },
    alive: () => view.alive() && state.kind === kind,
    onLeave: (fn) => view.onLeave(fn),
  };
}
