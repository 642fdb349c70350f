// The hash router: `#/chat/ID` shows the page whose `match` takes `/chat/ID`. Pages register
// themselves (main.js); one module per page. Each shown page gets a `View`: its root element,
// an AbortSignal that ends its requests when it is left, and `alive()` — a late response
// checks it and paints nothing over a newer view (a request generation per view).
//
// A page module is `{id, nav?, public?, match(path) → params|null, title(params),
// render(view, params), update?(view, params) → boolean}`. `update` lets a page take a new
// path without being rebuilt (the chat page switching conversation); returning false rebuilds.

const pages = [];
let current = null; // {page, view}
let host = null;
let guard = () => null;
let afterShow = () => {};

/** A shown page's lifetime. */
export class View {
  constructor(root) {
    this.root = root;
    this.controller = new AbortController();
    this.leaving = [];
    this.closed = false;
  }

  /** Aborted when the page is left: pass it to every request the page makes. */
  get signal() {
    return this.controller.signal;
  }

  /** False once the page was left: a response arriving after that must not paint. */
  alive() {
    return !this.closed;
  }

  /** `fn()` runs when the page is left (unsubscribe, stop timers). */
  onLeave(fn) {
    this.leaving.push(fn);
  }

  close() {
    this.closed = true;
    this.controller.abort();
    for (const fn of this.leaving.splice(0)) {
      try {
        fn();
      } catch (e) {
        console.error(e);
      }
    }
  }
}

export function register(page) {
  pages.push(page);
}

/** Pages with a header link, in registration order. */
export function navPages() {
  return pages.filter((p) => p.nav);
}

/** Is there a page at `path`? (The header links the approvals badge only when there is.) */
export function hasPage(path) {
  return pages.some((p) => p.match(path));
}

/** The path the location names (`/chat` when none). */
export function currentPath() {
  const hash = location.hash;
  return hash.startsWith('#/') ? decodeURI(hash.slice(1)) : '/chat';
}

export function go(path) {
  if (currentPath() === path && location.hash) show();
  else location.hash = path;
}

/**
 * Start routing into `root`. `check(page, path)` returns a path to go to instead (signed out →
 * the sign-in page) or null; `shown(page)` runs after each page is shown.
 */
export function start(root, { check, shown }) {
  host = root;
  guard = check;
  afterShow = shown;
  window.addEventListener('hashchange', () => {
    // Only `#/…` is a route: `#main` (the skip link) just moves focus.
    if (location.hash === '' || location.hash.startsWith('#/')) show();
  });
  show();
}

/** Show the page for the current location (again). */
export function show() {
  const path = currentPath();
  const found = pages.map((page) => ({ page, params: page.match(path) })).find((x) => x.params);
  if (!found) {
    render(notFound, {});
    return;
  }
  const redirect = guard(found.page, path);
  if (redirect) {
    go(redirect);
    return;
  }
  if (current && current.page === found.page && current.page.update &&
      current.page.update(current.view, found.params)) {
    document.title = `${found.page.title(found.params)} · Steward`;
    return;
  }
  render(found.page, found.params);
}

function render(page, params) {
  if (current) current.view.close();
  const root = document.createElement('div');
  root.className = `page page-${page.id}`;
  host.replaceChildren(root);
  const view = new View(root);
  current = { page, view };
  document.title = `${page.title(params)} · Steward`;
  page.render(view, params);
  afterShow(page);
  // Screen readers and keyboards start at the new page's heading (unless the page put the
  // focus somewhere itself, the sign-in field say).
  const heading = root.querySelector('h1');
  if (heading && !root.contains(document.activeElement)) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
}

/** The page shown for a path no page takes. */
const notFound = {
  id: 'not-found',
  public: true,
  match: () => null,
  title: () => 'Not found',
  render(view) {
    const h1 = document.createElement('h1');
    h1.textContent = 'There is no such page';
    const p = document.createElement('p');
    const a = document.createElement('a');
    a.href = '#/chat';
    a.textContent = 'Go to the chat';
    p.append(a);
    view.root.append(h1, p);
  },
};
