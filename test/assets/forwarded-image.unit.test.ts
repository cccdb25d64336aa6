import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkDataUriImage, checkForwardedImage } from '../../shared/assets/forwarded-image.js';
import { pngClaiming, pngOfSize } from '../support/images.js';

// Issue 30, part 6: an image the gateway forwards is checked like an upload — its type read from the
// bytes, its pixel count from the header before any decode.
describe('forwarded images', () => {
  it('reads the type from the bytes, whatever the label', async () => {
    const webp = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } })
      .webp()
      .toBuffer();
    await expect(checkForwardedImage(webp, 'image')).resolves.toEqual({
      contentType: 'image/webp',
      width: 3,
      height: 2,
    });
    await expect(checkForwardedImage(pngOfSize(500), 'image')).resolves.toMatchObject({ contentType: 'image/png' });
  });

  it('refuses what is not an image, or an image of another kind, naming the field', async () => {
    await expect(
      checkForwardedImage(Buffer.from('<html>hello</html>'), 'messages[0].content[1]'),
    ).rejects.toMatchObject({
      code: 'invalid_image',
      status: 400,
      param: 'messages[0].content[1]',
    });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>');
    await expect(checkForwardedImage(svg, 'image')).rejects.toMatchObject({ code: 'unsupported_media_type' });
  });

  it('refuses a header claiming over 40 megapixels without decoding it', async () => {
    const bomb = pngClaiming(60_000, 60_000);
    expect(bomb.length).toBeLessThan(100);
    const started = performance.now();
    await expect(checkForwardedImage(bomb, 'images[0].image_url')).rejects.toMatchObject({
      code: 'invalid_image',
      param: 'images[0].image_url',
      message: expect.stringContaining('60000 × 60000'),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(checkForwardedImage(pngClaiming(6_000, 6_000), 'image')).resolves.toMatchObject({ width: 6_000 });
  });

  it('decodes a data URI and holds its label to its bytes', async () => {
    const png = pngOfSize(80);
    const uri = `data:image/png;base64,${png.toString('base64')}`;
    await expect(checkDataUriImage(uri, 'f', 1_000)).resolves.toMatchObject({ contentType: 'image/png', bytes: png });
    await expect(
      checkDataUriImage(`data:image/jpeg;base64,${png.toString('base64')}`, 'f', 1_000),
    ).rejects.toMatchObject({
      code: 'unsupported_media_type',
      param: 'f',
    });
    await expect(checkDataUriImage(uri, 'f', 50)).rejects.toMatchObject({ code: 'invalid_request', param: 'f' });
    await expect(checkDataUriImage('data:image/png,abc', 'f', 1_000)).rejects.toMatchObject({ param: 'f' });
  });
});
