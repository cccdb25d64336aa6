import sharp from 'sharp';

/** A real 1 × 1 PNG (69 bytes or so), made once. */
const TINY_PNG = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } })
  .png()
  .toBuffer();

/** A real PNG padded after its end to `bytes` (what an image host of that size serves; readers stop at IEND). */
export function pngOfSize(bytes: number): Buffer {
  return Buffer.concat([TINY_PNG, Buffer.alloc(Math.max(0, bytes - TINY_PNG.length))]);
}

/** A small PNG whose header claims `width` × `height` (a decompression bomb's calling card). */
export function pngClaiming(width: number, height: number): Buffer {
  const png = Buffer.from(TINY_PNG);
  // IHDR: 8-byte signature, 4-byte length, 'IHDR', then width and height; its CRC covers type + data.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
