import { badRequest } from './errors.js';
import { fieldPath } from './validation.js';

// Postgres refuses NUL in text and jsonb, so a NUL that reached a query answered 500. It is refused
// at the edge instead, for every JSON body, query string and path (docs/reference/security.md).

// The only way JSON carries a NUL: a raw 0x00 byte is not valid JSON, and `0000` has no letter case.
const NUL_ESCAPE = Buffer.from('\\u0000');

const refused = (field: string) =>
  badRequest(`invalid value for '${field}': must not contain a NUL character (\\u0000)`, field);

/**
 * 400 naming the first field (or member name) of a parsed JSON body that holds a NUL. The raw
 * bytes are searched first, so a body without the escape costs one `indexOf` and no walk.
 */
export function refuseNulInJson(raw: Buffer, value: unknown): void {
  if (raw.indexOf(NUL_ESCAPE) === -1) return;
  const path = nulPath(value);
  if (path) throw refused(fieldPath(path) || '(body)');
}

/** 400 naming the query parameter (or the path) of a raw request target that holds `%00`. */
export function refuseNulInUrl(url: string): void {
  const at = url.indexOf('%00');
  if (at === -1) return;
  const q = url.indexOf('?');
  if (q === -1 || at < q) throw badRequest('the request path must not contain a NUL character (%00)');
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
    if (name.includes('\0') || value.includes('\0')) throw refused(printable(name));
  }
}

interface Node {
  value: unknown;
  parent: Node | undefined;
  key: string | number | undefined;
}

/** The path to the first string holding a NUL, in document order; iterative, since bodies may nest deeply. */
function nulPath(root: unknown): (string | number)[] | undefined {
  const stack: Node[] = [{ value: root, parent: undefined, key: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const { value, key } = node;
    if (typeof key === 'string' && key.includes('\0')) return pathOf(node);
    if (typeof value === 'string') {
      if (value.includes('\0')) return pathOf(node);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, key: i });
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i]![1], parent: node, key: entries[i]![0] });
    }
  }
  return undefined;
}

function pathOf(node: Node): (string | number)[] {
  const path: (string | number)[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent)
    path.push(typeof n.key === 'string' ? printable(n.key) : n.key);
  return path.reverse();
}

// Member names are echoed in the message: the NUL is written as its JSON escape.
const printable = (name: string) => name.replaceAll('\0', '\\u0000');
