// Office files that are not ZIPs: an OLE2/CFB container is either an encrypted OOXML package or a legacy binary file.
import { LoadError } from '../types';

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export function isCfb(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && CFB_MAGIC.every((b, i) => bytes[i] === b);
}

/** "EncryptedPackage" as a UTF-16LE directory entry name. */
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');

/** Throws the right LoadError for an OOXML file that is really an OLE2/CFB container; returns otherwise. */
/** `legacy`: the extension of the legacy binary format of `format` (formats.ts, `legacyExtension`). */
export function rejectCfbOffice(bytes: Uint8Array, format: string, legacy: string): void {
  if (!isCfb(bytes)) return;
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes(ENCRYPTED_PACKAGE)) {
    throw new LoadError('password-protected', 'skipped: password-protected');
  }
  throw new LoadError('unsupported', `this is a legacy binary Office file (.${legacy}) with a .${format} name; save it as .${format} to index it`);
}
