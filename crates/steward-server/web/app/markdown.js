// The assistant's markdown as safe page content, by two well-kept libraries (vendor/README.md):
// marked turns it into HTML, DOMPurify keeps only an allow-list of plain text markup. Nothing
// the model writes may load anything or run anything:
// - raw HTML in the markdown is shown as text (marked's `html` renderer escapes it), and the
//   sanitizer would drop it anyway;
// - images become their alt text: no `<img>` at all, so no request to anywhere (the policy's
//   `img-src` would block remote ones too; a same-origin one must not load either);
// - links keep only http(s) and mailto targets and open in a new tab without a referrer;
// - no style, class (except a code block's language), form, frame, media or SVG.
// This is the only module that turns text into markup; everything else sets textContent.

import { Marked } from './vendor/marked.esm.js';
import DOMPurify from './vendor/purify.es.mjs';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    image({ text }) {
      return escapeHtml(text ? `[image: ${text}]` : '[image]');
    },
  },
});

const SANITIZE = {
  ALLOWED_TAGS: [
    'a', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
    'li', 'ol', 'p', 'pre', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
  ],
  ALLOWED_ATTR: ['href', 'title', 'start', 'align', 'class'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    if (node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  }
  // Only a code block's `language-x` survives as a class.
  if (node.hasAttribute && node.hasAttribute('class')) {
    const keep = node.tagName === 'CODE' && /^language-[\w+-]{1,32}$/.test(node.getAttribute('class'));
    if (!keep) node.removeAttribute('class');
  }
  if (node.hasAttribute && node.hasAttribute('align') &&
      !['left', 'right', 'center'].includes(node.getAttribute('align'))) {
    node.removeAttribute('align');
  }
});

/**
 * `text` (markdown) as a DocumentFragment of sanitised markup. Where the sanitizer cannot
 * work (a very old browser: it then hands back its input unchanged), the text stays text.
 */
export function renderMarkdown(text) {
  if (!DOMPurify.isSupported) return document.createTextNode(String(text));
  const out = DOMPurify.sanitize(marked.parse(String(text)), SANITIZE);
  if (!(out instanceof Node)) return document.createTextNode(String(text));
  // A link whose target was refused (javascript:, relative) is just its words.
  for (const a of out.querySelectorAll('a:not([href])')) a.replaceWith(...a.childNodes);
  return out;
}
