/** Argument checks that fail before any request is sent. */
export function nonEmpty(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

/** An id placed in a URL path: no slashes, whitespace or dot segments. */
export function idSegment(name: string, value: unknown): string {
  const id = nonEmpty(name, value);
  if (id.includes('/') || id === '.' || id === '..' || /\s/.test(id))
    throw new TypeError(`${name} must be an id (no '/', whitespace or dot segments), got ${JSON.stringify(id)}`);
  return encodeURIComponent(id);
}

export function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`${name} must be a positive number`);
  return value;
}

export function printableKey(name: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(value))
    throw new TypeError(`${name} must be 1-255 printable ASCII characters`);
  return value;
}
