// The Notes section of the Memory page: `GET /api/v1/notes?tag=` (the tag filter asks the
// server; the search filters what came back by title, body and tags), each with its tags and
// where it came from. Edit sends `PATCH /api/v1/notes/{id}` with the title, body and tags;
// Delete asks in the page first.

import { del, patch } from '../api.js';
import { h, when } from '../dom.js';
import { describe } from '../errors.js';
import { askFirst } from './confirm.js';
import { provenanceParts } from './facts.js';
import { ListSection, actions, button } from './section.js';

const splitTags = (text) => text.split(/[\s,]+/).map((t) => t.trim()).filter(Boolean);

export function notesSection(view) {
  const tag = h('input', { type: 'text', id: 'notes-tag', class: 'memory-tag', autocomplete: 'off', placeholder: 'e.g. travel' });
  const search = h('input', { type: 'search', id: 'notes-search', class: 'memory-search', autocomplete: 'off' });
  const section = new ListSection(view, {
    id: 'notes',
    title: 'Notes',
    intro: 'Longer things Steward saved for you, with tags.',
    empty: 'There are no notes here yet. Ask Steward to save a note, or clear the tag filter.',
    controls: [
      h('label', { for: 'notes-tag', text: 'Only the tag' }), tag,
      h('label', { for: 'notes-search', text: 'Search notes' }), search,
    ],
    url: () => {
      const t = tag.value.trim().toLowerCase();
      return t ? `/api/v1/notes?limit=500&tag=${encodeURIComponent(t)}` : '/api/v1/notes?limit=500';
    },
    items: (body) => body.notes,
    filter: (n) => {
      const q = search.value.trim().toLowerCase();
      return !q || n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q) ||
        n.tags.some((t) => t.includes(q));
    },
    row: (n, s) => noteRow(n, s),
  });
  let timer = null;
  tag.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => section.load(), 250);
  });
  view.onLeave(() => clearTimeout(timer));
  search.addEventListener('input', () => section.paint());
  return section;
}

function noteRow(n, section) {
  const name = n.title || 'untitled';
  const shown = h('div', { class: 'note-shown' },
    h('p', { class: 'note-body', text: n.body }),
    n.tags.length ? h('ul', { class: 'tags', 'aria-label': 'Tags' }, n.tags.map((t) => h('li', { class: 'tag', text: t }))) : null);
  const bar = actions(
    button('Edit', `Edit the note ${name}`, () => edit()),
    button('Delete', `Delete the note ${name}`, () => askFirst(bar, `Delete the note “${name}”?`, async () => {
      await del(`/api/v1/notes/${n.id}`);
      await section.load();
    }, (e) => describe(e)), 'danger'),
  );
  const title = h('h3', { class: 'note-title', text: name });
  const row = h('li', { class: 'memory-row note', 'data-id': String(n.id) },
    title, shown,
    h('p', { class: 'provenance' }, ...provenanceParts(n.provenance), n.provenance ? '. ' : '', 'Changed ', when(n.updated_at_ms), '.'),
    bar);

  function edit() {
    const base = `note-${n.id}`;
    const t = h('input', { type: 'text', id: `${base}-title`, value: n.title });
    const b = h('textarea', { id: `${base}-body`, rows: '5' });
    b.value = n.body;
    const g = h('input', { type: 'text', id: `${base}-tags`, value: n.tags.join(' ') });
    const error = h('p', { class: 'row-error', role: 'alert' });
    const form = h('form', { class: 'row-edit' },
      h('label', { for: `${base}-title`, text: 'Title' }), t,
      h('label', { for: `${base}-body`, text: 'Text' }), b,
      h('label', { for: `${base}-tags`, text: 'Tags (separated by spaces)' }), g,
      h('div', { class: 'row-actions' },
        h('button', { type: 'submit', class: 'primary', text: 'Save' }),
        button('Cancel', `Stop editing the note ${name}`, () => form.replaceWith(shown, bar))),
      error);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      try {
        await patch(`/api/v1/notes/${n.id}`, { title: t.value, body: b.value, tags: splitTags(g.value) });
        await section.load();
      } catch (e) {
        error.textContent = describe(e);
      }
    });
    bar.remove();
    shown.replaceWith(form);
    t.focus();
  }
  return row;
}
