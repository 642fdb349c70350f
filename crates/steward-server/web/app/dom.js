// Building the page: `h(tag, props, ...children)` makes an element whose text is always set as
// text (textContent, text nodes), never parsed as HTML — the one place that does parse markup
// is markdown.js, and only through the sanitizer. The Content-Security-Policy refuses inline
// script and style, so there are no `style` or `on…` attributes either: listeners go through
// `on`, looks through classes.

/**
 * @param {string} tag
 * @param {object} [props] class, text, on: {event: fn}, hidden, and any attribute
 *   (aria-*, data-*, type, href...); `false`/`null`/`undefined` values are left out.
 * @param {...(Node|string|null|undefined|false)} children strings become text nodes
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'on') for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === 'hidden') el.hidden = Boolean(value);
    else if (key === 'disabled') el.disabled = Boolean(value);
    else if (key === 'value') el.value = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children (strings as text). */
export function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** Replaces every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** A `<time>` with the local date and time of a unix-ms timestamp. */
export function when(ms) {
  const date = new Date(ms);
  const text = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: date.toISOString(), text });
}
