// Image type and pixel dimensions read from the header only (no decoding), so a pixel bomb (a small file that claims
// 100,000 × 100,000 pixels) is refused before any decoder allocates its bitmap.

export type ImageType = 'png' | 'jpeg' | 'tiff' | 'webp' | 'bmp' | 'gif';

export interface ImageHeader {
  type: ImageType;
  width: number;
  height: number;
}

function u16be(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}
function u32be(b: Uint8Array, o: number): number {
  return ((b[o] << 24) >>> 0) + ((b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]);
}
function u16le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}
function u32le(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)) + ((b[o + 3] << 24) >>> 0);
}
function i32le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

/** The image's type by magic bytes, or null when the bytes are not an image we read. */
export function sniffImageType(b: Uint8Array): ImageType | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 4 && ((b[0] === 0x49 && b[1] === 0x49 && b[2] === 0x2a && b[3] === 0) || (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && b[3] === 0x2a))) return 'tiff';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'webp';
  if (b.length >= 2 && b[0] === 0x42 && b[1] === 0x4d) return 'bmp';
  if (b.length >= 6 && String.fromCharCode(...b.subarray(0, 3)) === 'GIF') return 'gif';
  return null;
}

/** Type and dimensions from the header; null when the header is missing or unreadable (a corrupt image). */
export function readImageHeader(b: Uint8Array): ImageHeader | null {
  const type = sniffImageType(b);
  if (!type) return null;
  const dims = dimensions(type, b);
  if (!dims || !(dims.width > 0) || !(dims.height > 0)) return null;
  return { type, ...dims };
}

function dimensions(type: ImageType, b: Uint8Array): { width: number; height: number } | null {
  switch (type) {
    case 'png':
      // IHDR is the first chunk: length(4) "IHDR"(4) width(4) height(4).
      if (b.length < 24 || String.fromCharCode(...b.subarray(12, 16)) !== 'IHDR') return null;
      return { width: u32be(b, 16), height: u32be(b, 20) };
    case 'jpeg':
      return jpegDimensions(b);
    case 'gif':
      if (b.length < 10) return null;
      return { width: u16le(b, 6), height: u16le(b, 8) };
    case 'bmp':
      if (b.length < 26) return null;
      return { width: Math.abs(i32le(b, 18)), height: Math.abs(i32le(b, 22)) };
    case 'webp':
      return webpDimensions(b);
    case 'tiff':
      return tiffDimensions(b);
  }
}

function jpegDimensions(b: Uint8Array): { width: number; height: number } | null {
  let o = 2;
  while (o + 9 < b.length) {
    if (b[o] !== 0xff) return null;
    const marker = b[o + 1];
    if (marker === 0xff) {
      o++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      o += 2;
      continue;
    }
    const len = u16be(b, o + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(b, o + 5), width: u16be(b, o + 7) };
    }
    if (len < 2) return null;
    o += 2 + len;
  }
  return null;
}

function webpDimensions(b: Uint8Array): { width: number; height: number } | null {
  if (b.length < 30) return null;
  const chunk = String.fromCharCode(...b.subarray(12, 16));
  if (chunk === 'VP8X') return { width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)) };
  if (chunk === 'VP8 ') return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = u32le(b, 21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return null;
}

function tiffDimensions(b: Uint8Array): { width: number; height: number } | null {
  const le = b[0] === 0x49;
  const r16 = (o: number) => (le ? u16le(b, o) : u16be(b, o));
  const r32 = (o: number) => (le ? u32le(b, o) : u32be(b, o));
  const ifd = r32(4);
  if (ifd + 2 > b.length) return null;
  const count = r16(ifd);
  let width = 0;
  let height = 0;
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > b.length) return null;
    const tag = r16(e);
    const kind = r16(e + 2);
    const value = kind === 3 ? r16(e + 8) : r32(e + 8);
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width && height ? { width, height } : null;
}
