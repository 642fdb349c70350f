// The Facts section of the Memory page: `GET /api/v1/facts`, filtered as you type (key or
// value), each with where it came from — the owner (`user`), extraction from a conversation,
// or the nightly reflection — and in which conversation, and a mark on quarantined ones
// (written while untrusted content was in the turn). Edit sends `PUT /api/v1/facts/{key}`,
// which makes the fact the owner's own word (`source = user`); Delete asks in the page first.

import { del, seg } from '../api.js';
import { h, when } from '../dom.js';
import { describe } from '../errors.js';
import { put } from './put.js';
import { askFirst } from './confirm.js';
import { ListSection, actions, button } from './section.js';

const SOURCE_WORDS = {
  user: 'you said so',
  extracted: 'Steward took it from a conversation',
  reflection: 'Steward concluded it on reflection',
};

/** Where a text came from, in words (a `Provenance`), and whether it is quarantined. */
export function provenanceParts(p) {
  if (!p || !p.origin) return [];
  const conv = p.conversation
    ? [' in ', h('a', { href: `#/chat/${encodeURIComponent(p.conversation)}`, class: 'prov-conversation', text: p.conversation })]
    : [];
  switch (p.origin) {
    case 'user': return ['typed by you', ...conv];
    case 'assistant': return ['written by Steward', ...conv];
    case 'tool_output': return ['from the tool ', h('span', { class: 'tool-name', text: p.tool })];
    case 'fetched': return ['fetched from ', h('span', { class: 'prov-url', text: p.url })];
    case 'reflection': return ['from the nightly reflection'];
    case 'tainted': return [
      h('span', { class: 'quarantined', text: 'Quarantined' }),
      ' — written while untrusted content was in the turn',
      ...(p.sources && p.sources.length ? [' (', p.sources.join(', '), ')'] : []),
      ...conv,
      '; kept out of other conversations until you confirm it',
    ];
    default: return [p.origin];
  }
}

export function factsSection(view) {
  const search = h('input', { type: 'search', id: 'facts-search', class: 'memory-search', autocomplete: 'off' });
  const section = new ListSection(view, {
    id: 'facts',
    title: 'Facts',
    intro: 'Short things Steward keeps about you (home.city = Lyon). Editing one makes it your own word.',
    empty: 'Steward keeps no facts about you yet. It adds them when you tell it something worth keeping, or when you ask it to remember.',
    controls: [h('label', { for: 'facts-search', text: 'Search facts' }), search],
    url: () => '/api/v1/facts?limit=1000',
    items: (body) => body.facts,
    filter: (f) => {
      const q = search.value.trim().toLowerCase();
      return !q || f.key.toLowerCase().includes(q) || f.value.toLowerCase().includes(q);
    },
    row: (f, s) => factRow(f, s),
  });
  search.addEventListener('input', () => section.paint());
  return section;
}

function factRow(f, section) {
  const value = h('p', { class: 'fact-value', text: f.value });
  const bar = actions(
    button('Edit', `Edit the fact ${f.key}`, () => edit()),
    button('Delete', `Delete the fact ${f.key}`, () => askFirst(bar, `Delete the fact ${f.key}?`, async () => {
      await del(`/api/v1/facts/${seg(f.key)}`);
      await section.load();
    }, (e) => describe(e)), 'danger'),
  );
  const row = h('li', { class: 'memory-row fact', 'data-key': f.key, 'data-source': f.source },
    h('h3', { class: 'fact-key' }, h('code', { text: f.key })),
    value,
    h('p', { class: 'provenance' },
      h('span', { class: `source source-${f.source}`, 'data-source': f.source, text: `Source: ${f.source}` }),
      ` (${SOURCE_WORDS[f.source] || f.source}); `, ...provenanceParts(f.provenance),
      '. Last seen ', when(f.last_seen_ms), '.'),
    bar);

  function edit() {
    const id = `fact-edit-${f.id}`;
    const input = h('input', { type: 'text', id, class: 'fact-input', value: f.value });
    const error = h('p', { class: 'row-error', role: 'alert' });
    const form = h('form', { class: 'row-edit' },
      h('label', { for: id, text: `New value for ${f.key}` }), input,
      h('div', { class: 'row-actions' },
        h('button', { type: 'submit', class: 'primary', text: 'Save' }),
        button('Cancel', `Stop editing ${f.key}`, () => form.replaceWith(value, bar))),
      error);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      try {
        await put(`/api/v1/facts/${seg(f.key)}`, { value: input.value });
        await section.load();
      } catch (e) {
        error.textContent = describe(e);
      }
    });
    bar.remove();
    value.replaceWith(form);
    input.focus();
  }
  return row;
}
