// A stored conversation as the page shows it after a reload: the owner's messages as text,
// Steward's answers as markdown, each tool call with its result beside it (a result finds its
// call by `tool_call_id`), attachments named, and Steward's own note after an approved action
// (stored as a user message opening with `<action_result`) folded away as Steward's, not
// shown as the owner's words. Everything but the answers' markdown is text.

import { h } from '../dom.js';
import { renderMarkdown } from '../markdown.js';

/** Append `messages` (the history route's items, oldest first) to `into`. */
export function paintHistory(into, messages) {
  const calls = new Map(); // tool_call_id → the call's row
  for (const m of messages) {
    const el = paintOne(m, calls);
    if (el) into.append(el);
  }
}

/** Is this user-role message Steward's note after a decision (the follow-up turn's input)? */
export function isActionNote(m) {
  return m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('<action_result');
}

/** The owner's message as the page shows it. */
export function userMessage(m) {
  return h('article', { class: 'msg user', 'aria-label': 'You', 'data-seq': m.seq },
    m.content ? h('p', { class: 'msg-text', text: m.content }) : null,
    attachments(m.attachments));
}

function paintOne(m, calls) {
  switch (m.role) {
    case 'user':
      if (isActionNote(m)) {
        return h('details', { class: 'msg note', 'data-seq': m.seq },
          h('summary', { text: 'Steward’s note to itself after the approval' }),
          h('pre', { text: m.content }));
      }
      return userMessage(m);
    case 'assistant': {
      const tools = (m.tool_calls || []).map((c) => {
        const row = h('li', { class: 'tool', 'data-status': 'ok' },
          h('span', { class: 'tool-name', text: c.name }),
          c.arguments && c.arguments !== '{}'
            ? h('details', { class: 'tool-args' }, h('summary', { text: 'Arguments' }), h('pre', { text: c.arguments }))
            : null);
        calls.set(c.id, row);
        return row;
      });
      if (!m.content && tools.length === 0) return null;
      return h('article', { class: 'msg assistant', 'aria-label': 'Steward', 'data-seq': m.seq },
        tools.length ? h('ul', { class: 'tools', 'aria-label': 'Tools used' }, tools) : null,
        m.content ? h('div', { class: 'turn-text' }, renderMarkdown(m.content)) : null,
        attachments(m.attachments));
    }
    case 'tool': {
      const result = h('details', { class: 'tool-output' }, h('summary', { text: 'Result' }), h('pre', { text: m.content || '' }));
      const row = calls.get(m.tool_call_id);
      if (row) {
        row.append(result);
        return null;
      }
      return h('article', { class: 'msg assistant', 'data-seq': m.seq },
        h('ul', { class: 'tools', 'aria-label': 'Tools used' },
          h('li', { class: 'tool' }, h('span', { class: 'tool-name', text: m.tool_name || 'tool' }), result)));
    }
    default:
      return null;
  }
}

function attachments(list) {
  if (!list || list.length === 0) return null;
  return h('ul', { class: 'attachments', 'aria-label': 'Attachments' },
    list.map((a) => h('li', { text: `${a.name || a.kind || 'attachment'} (${a.mime_type || 'file'}${a.size ? `, ${formatSize(a.size)}` : ''})` })));
}

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
