// The in-page "are you sure?" step before a delete: the row's buttons give way to a question
// and two real buttons (Delete / Keep), focus moving to Keep so Enter does no harm. Never the
// browser's own confirm dialog: it threw on older clients in the reference
// assistant, and it cannot be styled, tested or read by axe.

import { h } from '../dom.js';

/**
 * Ask `question` in place of `actions` (an element holding the row's buttons); `yes()` runs
 * on Delete (a promise: its error is shown), Keep puts the buttons back.
 * @param {HTMLElement} actions
 * @param {string} question e.g. "Delete the fact home.city?"
 * @param {() => Promise<void>} yes
 * @param {(e: any) => string} explain the sentence for a failure
 */
export function askFirst(actions, question, yes, explain) {
  const kept = Array.from(actions.childNodes);
  const error = h('span', { class: 'row-error', role: 'alert' });
  const keep = h('button', { type: 'button', text: 'Keep', on: { click: restore } });
  const sure = h('button', {
    type: 'button', class: 'danger', text: 'Delete',
    on: {
      click: async () => {
        sure.disabled = true;
        keep.disabled = true;
        try {
          await yes();
        } catch (e) {
          error.textContent = explain(e);
          sure.disabled = false;
          keep.disabled = false;
        }
      },
    },
  });
  const ask = h('span', { class: 'ask-first', role: 'group', 'aria-label': question },
    h('span', { class: 'ask-question', text: question }), ' ', sure, ' ', keep, ' ', error);
  actions.replaceChildren(ask);
  keep.focus();

  function restore() {
    actions.replaceChildren(...kept);
    const first = actions.querySelector('button');
    if (first) first.focus();
  }
}
