// One runtime setting on the Settings page: its input by kind (integer → number with the
// registry's bounds, boolean → checkbox, model, time zone and text → text; time zones offer a
// few common names), what it does, its rule, where its value comes from and what it falls
// back to; Save (`PUT /api/v1/settings/{key}`) and, when the value was set here, Reset
// (`DELETE`). The server's own sentence says why a value was refused (422 `invalid_value`) or
// why the field cannot change (409 `locked`: an environment variable fixes it); a field the
// environment fixes is disabled and says which variable. Only the newest answer paints.

import { call, del, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { describe } from '../errors.js';

const COMMON_ZONES = ['UTC', 'Europe/London', 'Europe/Berlin', 'Europe/Paris', 'America/New_York',
  'America/Chicago', 'America/Los_Angeles', 'Asia/Tokyo', 'Asia/Kolkata', 'Australia/Sydney'];

/** The words for a value's source. */
function sourceText(v) {
  switch (v.source) {
    case 'default': return 'Steward’s default';
    case 'file': return 'the configuration file';
    case 'env': return v.locked_by ? `the environment variable ${v.locked_by}` : 'the environment';
    case 'app': return 'set here';
    default: return v.source;
  }
}

/** An id safe for `id`/`for` from a key like `agent.max_rounds`. */
const idOf = (key) => `setting-${key.replace(/[^a-z0-9_-]/g, '-')}`;

/** The server's sentence when it says what is wrong; otherwise `describe`. */
export function refusal(e) {
  if (e && (e.kind === 'invalid_value' || e.kind === 'locked' || e.kind === 'invalid_request') && e.message) {
    return e.message;
  }
  return describe(e, 'Steward does not have this setting any more. Reload the page.');
}

export class SettingField {
  /** @param {object} setting one item of `GET /api/v1/settings` */
  constructor(setting) {
    this.generation = 0;
    this.el = h('form', { class: 'setting', 'data-key': setting.key, novalidate: true,
      on: { submit: (ev) => {
        ev.preventDefault();
        this.save();
      } } });
    this.paint(setting);
  }

  paint(v) {
    this.view = v;
    const id = idOf(v.key);
    const locked = Boolean(v.locked_by);
    const described = [`${id}-help`, `${id}-rule`, `${id}-note`].join(' ');
    let input;
    if (v.kind === 'boolean') {
      input = h('input', { id, type: 'checkbox', name: v.key, checked: v.value === 'true' || null });
    } else if (v.kind === 'integer') {
      input = h('input', { id, type: 'number', name: v.key, inputmode: 'numeric', step: '1',
        min: v.min ?? null, max: v.max ?? null, value: v.value ?? '' });
    } else {
      input = h('input', { id, type: 'text', name: v.key, value: v.value ?? '', spellcheck: 'false',
        autocomplete: 'off', list: v.kind === 'timezone' ? `${id}-zones` : null });
    }
    input.disabled = locked;
    input.setAttribute('aria-describedby', described);
    this.input = input;
    this.note = h('p', { id: `${id}-note`, class: 'setting-note', role: 'status', 'aria-live': 'polite' });
    this.error = h('p', { class: 'error setting-error', role: 'alert', hidden: true });
    this.saveBtn = h('button', { type: 'submit', class: 'primary', text: 'Save', disabled: locked });
    const resetBtn = v.source === 'app'
      ? h('button', { type: 'button', text: 'Reset', 'aria-label': `Reset ${v.key}`, on: { click: () => this.reset() } })
      : null;
    const label = h('label', { for: id, class: 'setting-key', text: v.key });
    const field = v.kind === 'boolean'
      ? h('div', { class: 'setting-check' }, input, label)
      : h('div', { class: 'setting-input' }, label, input);
    replace(this.el,
      field,
      v.kind === 'timezone' ? h('datalist', { id: `${id}-zones` }, COMMON_ZONES.map((z) => h('option', { value: z }))) : null,
      h('p', { id: `${id}-help`, class: 'setting-help', text: v.help }),
      h('p', { id: `${id}-rule`, class: 'setting-rule muted', text: `Rule: ${v.rule}.` }),
      h('p', { class: 'setting-source muted' },
        `Value from: ${sourceText(v)}.`,
        v.source === 'app' ? ` Reset goes back to ${v.fallback === null ? 'no value' : `“${v.fallback}”`}.` : ''),
      locked ? h('p', { class: 'setting-locked', text: `The environment variable ${v.locked_by} sets this, and it wins over the app: change or unset ${v.locked_by} and restart Steward to change it.` }) : null,
      h('div', { class: 'row setting-actions' }, this.saveBtn, resetBtn),
      this.error, this.note);
  }

  value() {
    return this.view.kind === 'boolean' ? String(this.input.checked) : this.input.value.trim();
  }

  async save() {
    await this.send(() => call('PUT', `/api/v1/settings/${seg(this.view.key)}`, { body: { value: this.value() } }), 'Saved. In force from the next message.');
  }

  async reset() {
    await this.send(() => del(`/api/v1/settings/${seg(this.view.key)}`), 'Reset. The value set here is gone, in force from the next message.');
  }

  async send(request, done) {
    const mine = ++this.generation;
    this.saveBtn.disabled = true;
    this.error.hidden = true;
    this.note.textContent = '';
    try {
      const updated = await request();
      if (mine !== this.generation || !this.el.isConnected) return;
      const focusedReset = document.activeElement && document.activeElement.textContent === 'Reset';
      this.paint(updated);
      this.note.textContent = done;
      if (focusedReset) this.input.focus();
    } catch (e) {
      if (mine !== this.generation || !this.el.isConnected) return;
      this.error.textContent = refusal(e);
      this.error.hidden = false;
      this.saveBtn.disabled = Boolean(this.view.locked_by);
      if (!this.input.disabled) this.input.focus();
    }
  }
}
