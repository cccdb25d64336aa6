import { describe, expect, it } from 'vitest';
import { requestHash } from '../../shared/idempotency/idempotency-key.js';

// The hash an Idempotency-Key or clientRequestId is stored with: the same for the same request
// however it is written, the same across releases (keys stored by the one before stay valid for
// their 24 hours), and computed for any body JSON.parse can read.
describe('requestHash', () => {
  const body = {
    model: 'vid-sim',
    content: [
      { type: 'text', text: 'a cat surfing ✓' },
      { type: 'image_url', role: 'first_frame', image_url: { url: 'asset://asset_1' } },
    ],
    duration: 5,
    generate_audio: false,
    extra: null,
  };

  it('is the sha256 of the body with sorted keys, as stored by earlier releases', () => {
    expect(requestHash(body).toString('hex')).toBe('83322a51f9e3d27307a21099e81a7b5dff0d8fcb2ebbddd2175c9697b3fd1cd8');
  });

  it('does not depend on key order, white space or undefined members', () => {
    const reordered = JSON.parse(
      '{ "duration": 5, "extra": null, "generate_audio": false, "model": "vid-sim",\n "content": [{"text": "a cat surfing ✓", "type": "text"}, {"role": "first_frame", "type": "image_url", "image_url": {"url": "asset://asset_1"}}] }',
    );
    expect(requestHash({ ...reordered, absent: undefined })).toEqual(requestHash(body));
    expect(requestHash({ ...body, duration: 10 })).not.toEqual(requestHash(body));
    // Array order is the request's: not sorted.
    expect(requestHash({ ...body, content: [...body.content].reverse() })).not.toEqual(requestHash(body));
  });

  it('hashes a body nested 100,000 deep (no stack overflow: a fuzzed body once answered 500)', () => {
    const deep = JSON.parse(`${'{"a":['.repeat(100_000)}1${']}'.repeat(100_000)}`);
    expect(requestHash(deep)).toHaveLength(32);
  });
});
