// The sign-in page, `#/signin`: the owner's password (set with `steward user set-password`) or
// the API token. `POST /api/v1/session` sets the HttpOnly session cookie; the page keeps only
// the CSRF token it returns. Refusals say what happened in words (wrong credential, too many
// attempts, server unreachable), never which of password or token exists.

import { h } from '../dom.js';
import { describe } from '../errors.js';
import { signIn } from '../session.js';
import { enterSignedIn, takeNotice } from '../shell.js';

export default {
  id: 'signin',
  public: true,
  match: (path) => (path === '/signin' ? {} : null),
  title: () => 'Sign in',

  render(view) {
    const notice = takeNotice();
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const secret = h('input', { id: 'secret', name: 'secret', type: 'password', required: true,
      autocomplete: 'current-password', spellcheck: 'false' });
    const label = h('label', { for: 'secret', text: 'Password' });
    const choice = (value, text, checked) => h('label', { class: 'choice' },
      h('input', { type: 'radio', name: 'with', value, checked: checked || null,
        on: { change: () => {
          label.textContent = text;
          secret.autocomplete = value === 'password' ? 'current-password' : 'off';
          secret.focus();
        } } }),
      ` ${text}`);
    const submit = h('button', { type: 'submit', class: 'primary', text: 'Sign in' });
    const form = h('form', { class: 'signin-form', on: { submit: async (ev) => {
      ev.preventDefault();
      const using = form.querySelector('input[name=with]:checked').value;
      const value = secret.value;
      if (!value) return;
      submit.disabled = true;
      error.hidden = true;
      try {
        await signIn(using === 'password' ? { password: value } : { token: value });
        if (!view.alive()) return;
        secret.value = '';
        enterSignedIn();
      } catch (e) {
        if (!view.alive()) return;
        error.textContent = describe(e);
        error.hidden = false;
        secret.select();
      } finally {
        submit.disabled = false;
      }
    } } },
    h('fieldset', {},
      h('legend', { text: 'Sign in with' }),
      choice('password', 'Password', true),
      choice('token', 'API token', false)),
    h('div', { class: 'field' }, label, secret),
    error,
    submit);
    view.root.append(h('div', { class: 'signin' },
      h('h1', { text: 'Sign in to Steward' }),
      notice ? h('p', { class: 'notice', role: 'status', text: notice }) : null,
      form,
      h('p', { class: 'muted' }, 'No password yet? Run ', h('code', { text: 'steward user set-password' }),
        ' on the machine Steward runs on, or sign in with the API token from its configuration.')));
    secret.focus();
  },
};
