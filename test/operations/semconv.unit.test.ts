import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import * as ours from '../../shared/telemetry/semconv.js';

// The incubating attribute names are copied into shared/telemetry/semconv.ts (as the package asks:
// its incubating entry point may rename them in a minor release); each copy must still be what the
// installed package says, so an upgrade that renames one fails here.
describe('the semantic-convention names the spans use', () => {
  it('are, one by one, those of @opentelemetry/semantic-conventions', () => {
    const theirs = new Map<string, unknown>(Object.entries(incubating));
    const copies = Object.entries(ours);
    expect(copies.length).toBeGreaterThan(10);
    for (const [name, value] of copies) {
      expect(theirs.has(name), name).toBe(true);
      expect(value, name).toBe(theirs.get(name));
    }
  });
});
