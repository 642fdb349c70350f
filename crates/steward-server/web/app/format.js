// Numbers as a person reads them: byte counts (1.4 MB), durations (3 days 4 hours), token
// counts (12,345), US dollars (a cost below a cent keeps its digits), dates of the usage days.
// Pure functions: no DOM, so the Node tests can run them.

const BYTE_UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** `1536` → `1.5 KB` (powers of 1024, one decimal under 10). */
export function humanBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n) || n < 0) return 'unknown';
  if (n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${BYTE_UNITS[unit]}`;
}

const SPANS = [['day', 86400], ['hour', 3600], ['minute', 60], ['second', 1]];

/** `93784` → `1 day 2 hours` (the two largest units). */
export function humanDuration(secs) {
  if (!Number.isFinite(secs) || secs < 0) return 'unknown';
  let left = Math.floor(secs);
  if (left === 0) return '0 seconds';
  const parts = [];
  for (const [name, size] of SPANS) {
    const count = Math.floor(left / size);
    if (count > 0) {
      parts.push(`${count} ${name}${count === 1 ? '' : 's'}`);
      left -= count * size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** `12345` → `12,345`. */
export function count(n) {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : '0';
}

/** `0.0042` → `$0.0042`, `12.5` → `$12.50`; `null` → `no price`. */
export function usd(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'no price';
  if (value === 0) return '$0.00';
  if (value < 0.01) return `$${value.toPrecision(2)}`;
  return `$${value.toFixed(2)}`;
}

/** `2026-12-02` → `Dec 2` (the date itself, not shifted by the browser's zone). */
export function shortDate(ymd) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd || '');
  if (!m) return String(ymd);
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
