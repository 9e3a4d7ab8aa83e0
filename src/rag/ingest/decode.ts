// Bytes → string for the text formats: BOM first, then UTF-16 without a BOM (by its zero bytes), then a declared
// charset, then UTF-8 with a fallback. Bytes that are no text at all (a binary file named .md or .txt) are refused.
import * as iconv from 'iconv-lite';
import { LoadError } from '../types';

export interface Decoded {
  text: string;
  /** Encoding actually used (iconv-lite name). */
  encoding: string;
  warnings: string[];
}

/** Encoding named by a byte order mark, if any. */
export function sniffBom(bytes: Uint8Array): { encoding: string; skip: number } | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf8', skip: 3 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf16le', skip: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf16be', skip: 2 };
  return null;
}

/** Bytes looked at to tell text from binary data and UTF-16 without a BOM. */
const SAMPLE_BYTES = 64 * 1024;
/** Share of control bytes (other than tab, line feed, carriage return, form feed, escape) above which bytes are no text. */
const MAX_CONTROL_SHARE = 0.1;
/** Share of zero bytes above which bytes are no text (compressed or random data: ~0.4 %; a stray NUL in text: far less). */
const MAX_ZERO_SHARE = 0.0005;

/**
 * UTF-16 without a BOM, told by its zero bytes: text of Latin letters in UTF-16 has a zero in every other byte, at odd
 * offsets (little endian) or even ones (big endian). Null when the sample does not look like that.
 */
export function sniffUtf16(bytes: Uint8Array): 'utf16le' | 'utf16be' | null {
  const n = Math.min(bytes.length, SAMPLE_BYTES) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd > pairs * 0.3 && even < pairs * 0.02) return 'utf16le';
  if (even > pairs * 0.3 && odd < pairs * 0.02) return 'utf16be';
  return null;
}

/** Throws when the bytes are binary data: zero bytes or control bytes in shares that text does not have. */
export function refuseBinary(bytes: Uint8Array): void {
  const n = Math.min(bytes.length, SAMPLE_BYTES);
  let zero = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) zero++;
    else if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  if (zero > n * MAX_ZERO_SHARE || control > n * MAX_CONTROL_SHARE) {
    throw new LoadError('unsupported', 'the file holds binary data, not text; is its file name extension right?');
  }
}

/** The bytes decoded as UTF-8, or null when they are not valid UTF-8 (one pass: the check is the decoding). */
function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Maps a declared charset label to an iconv-lite encoding, or null when unknown. */
export function encodingForLabel(label: string): string | null {
  const l = label.trim().toLowerCase();
  if (l === 'unicode' || l === 'utf-16' || l === 'utf16') return 'utf16le';
  if (l === 'x-user-defined') return 'windows-1252';
  // The WHATWG encoding standard maps latin1/ascii labels to windows-1252.
  if (l === 'iso-8859-1' || l === 'latin1' || l === 'us-ascii' || l === 'ascii') return 'windows-1252';
  return iconv.encodingExists(l) ? l : null;
}

/** Guesses a single-byte legacy encoding for bytes that are not UTF-8 (Arabic, Cyrillic, Greek or Western). */
export function guessLegacyEncoding(bytes: Uint8Array): string {
  let high = 0;
  let arabic = 0;
  for (const b of bytes) {
    if (b < 0x80) continue;
    high++;
    // windows-1256 puts Arabic letters at C1–DA, DC–DF, E1, E3–E6, EC–ED; windows-1251 Cyrillic uses C0–FF evenly.
    if ((b >= 0xc1 && b <= 0xda) || (b >= 0xdc && b <= 0xdf) || b === 0xe1 || (b >= 0xe3 && b <= 0xe6) || b === 0xec || b === 0xed) arabic++;
  }
  if (high === 0) return 'windows-1252';
  // Western text has few high bytes per word (umlauts); Arabic/Cyrillic text is mostly high bytes.
  const letters = bytes.filter((b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)).length;
  if (high > letters) {
    // Arabic letters avoid the byte values that windows-1251 Cyrillic uses evenly, so their share tells them apart.
    return arabic / high > 0.8 ? 'windows-1256' : 'windows-1251';
  }
  return 'windows-1252';
}

/**
 * Decodes text bytes: BOM wins; then the declared charset (if the bytes fit it); UTF-8 when valid; else a guessed
 * legacy encoding with a warning.
 */
export function decodeText(bytes: Uint8Array, declared?: string | null): Decoded {
  const warnings: string[] = [];
  const bom = sniffBom(bytes);
  if (bom) {
    return { text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset + bom.skip, bytes.length - bom.skip), bom.encoding), encoding: bom.encoding, warnings };
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const utf16 = sniffUtf16(bytes);
  if (utf16) return { text: iconv.decode(buf, utf16), encoding: utf16, warnings: ['UTF-16 text without a byte order mark; decoded by its zero bytes'] };
  refuseBinary(bytes);
  const utf8 = utf8OrNull(bytes);
  const utf8Ok = utf8 !== null;
  if (declared) {
    const enc = encodingForLabel(declared);
    if (enc === null) {
      warnings.push(`unknown charset "${declared}" declared; decoded by content`);
    } else if (enc === 'utf8' || enc === 'utf-8') {
      if (utf8 !== null) return { text: utf8, encoding: 'utf8', warnings };
      const guess = guessLegacyEncoding(bytes);
      warnings.push(`charset declared UTF-8 but the bytes are not valid UTF-8; decoded as ${guess}`);
      return { text: iconv.decode(buf, guess), encoding: guess, warnings };
    } else if (enc.startsWith('utf16') || enc.startsWith('utf-16')) {
      // A UTF-16 declaration without BOM on an ASCII-compatible document is a known lie; trust the bytes.
      if (utf8 !== null) return { text: utf8, encoding: 'utf8', warnings };
      return { text: iconv.decode(buf, enc), encoding: enc, warnings };
    } else {
      // Non-ASCII bytes that form valid UTF-8 are practically never legacy text: the declaration is stale.
      if (utf8Ok && bytes.some((b) => b >= 0x80)) {
        warnings.push(`charset declared ${declared} but the bytes are UTF-8; decoded as UTF-8`);
        return { text: utf8, encoding: 'utf8', warnings };
      }
      return { text: iconv.decode(buf, enc), encoding: enc, warnings };
    }
  }
  if (utf8 !== null) return { text: utf8, encoding: 'utf8', warnings };
  const guess = guessLegacyEncoding(bytes);
  warnings.push(`text is not valid UTF-8; decoded as ${guess}`);
  return { text: iconv.decode(buf, guess), encoding: guess, warnings };
}
