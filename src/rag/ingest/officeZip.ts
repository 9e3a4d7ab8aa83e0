// Reading OOXML packages (the Office formats): ZIP entries read from the central directory and inflated with a bound, XML
// into a small ordered tree with fast-xml-parser.
import { inflateRawSync } from 'node:zlib';
import { strFromU8 } from 'fflate';
import { XMLParser } from 'fast-xml-parser';
import * as path from 'path';
import { LoadError } from '../types';

export type ZipEntries = Record<string, Uint8Array>;

/**
 * What one package may unpack to. Every entry is inflated (also those no reader wants, since a library reading the
 * package later would inflate them) and counted as it is inflated, so a decompression bomb stops at the bound instead of
 * filling memory: memory per file stays within `totalBytes` whatever the entries declare.
 */
export const ZIP_LIMITS = {
  /** Inflated bytes of one entry. */
  entryBytes: 64 * 1024 * 1024,
  /** Inflated bytes of all entries of one package. */
  totalBytes: 192 * 1024 * 1024,
  /** Entries in one package. */
  entries: 10_000,
};

const MB = 1024 * 1024;

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

/**
 * Unzips the entries that `want` accepts; a broken ZIP is a 'corrupt' LoadError, a package that unpacks past
 * ZIP_LIMITS a 'too-large' one.
 */
export function openZip(bytes: Uint8Array, label: string, want: (name: string) => boolean = () => true): ZipEntries {
  const corrupt = (why: string) =>
    new LoadError('corrupt', `cannot read ${label}: not a valid ZIP package (${why}). The file may be truncated or damaged; re-save it`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(bytes, view, corrupt);
  if (entries.length > ZIP_LIMITS.entries) {
    throw new LoadError('too-large', `${label} holds ${entries.length} parts, more than the limit of ${ZIP_LIMITS.entries}; skipped (a ZIP bomb or a damaged file)`);
  }
  const out: ZipEntries = {};
  let total = 0;
  for (const e of entries) {
    if (e.name.endsWith('/')) continue;
    // Part names come from the file: control characters never reach a reason.
    const part = e.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 120);
    if (e.flags & 1) throw corrupt(`part ${part} is encrypted`);
    if (e.localOffset + 30 > bytes.length || view.getUint32(e.localOffset, true) !== 0x04034b50) throw corrupt(`part ${part} has no local header`);
    const start = e.localOffset + 30 + view.getUint16(e.localOffset + 26, true) + view.getUint16(e.localOffset + 28, true);
    const end = start + e.compressedSize;
    if (end > bytes.length) throw corrupt(`part ${part} runs past the end of the file`);
    const data = bytes.subarray(start, end);
    const room = Math.min(ZIP_LIMITS.entryBytes, ZIP_LIMITS.totalBytes - total);
    let inflated: Uint8Array | null;
    if (e.method === 0) inflated = data;
    else if (e.method === 8) {
      try {
        // Inflating stops (with ERR_BUFFER_TOO_LARGE) once the output would pass the room left.
        inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, room) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') inflated = null;
        else throw corrupt(`part ${part}: ${(err as Error).message}`);
      }
    } else throw corrupt(`part ${part} uses compression method ${e.method}`);
    if (!inflated || inflated.length > room) {
      const which = room === ZIP_LIMITS.entryBytes ? `its part ${part} unpacks to more than ${ZIP_LIMITS.entryBytes / MB} MB` : `it unpacks to more than ${ZIP_LIMITS.totalBytes / MB} MB`;
      throw new LoadError('too-large', `${label} is too large to read: ${which}; skipped (a ZIP bomb or an unusually large document)`);
    }
    total += inflated.length;
    if (want(e.name)) out[e.name] = inflated;
  }
  return out;
}

/** The central directory's entries (ZIP64 sizes and offsets included). */
function centralDirectory(bytes: Uint8Array, view: DataView, corrupt: (why: string) => LoadError): CentralEntry[] {
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw corrupt('no end of central directory');
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && view.getUint32(eocd - 20, true) === 0x07064b50) {
    const z = Number(view.getBigUint64(eocd - 12, true));
    if (z + 56 > bytes.length || view.getUint32(z, true) !== 0x06064b50) throw corrupt('bad ZIP64 directory');
    count = Number(view.getBigUint64(z + 32, true));
    offset = Number(view.getBigUint64(z + 48, true));
  }
  // A central entry takes at least 46 bytes: a count the file cannot hold is a lie.
  if (count > bytes.length / 46) throw corrupt('the directory claims more parts than the file can hold');
  const entries: CentralEntry[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== 0x02014b50) throw corrupt('damaged central directory');
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    let compressedSize = view.getUint32(p + 20, true);
    const size32 = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    let localOffset = view.getUint32(p + 42, true);
    if (p + 46 + nameLen + extraLen > bytes.length) throw corrupt('damaged central directory');
    const rawName = bytes.subarray(p + 46, p + 46 + nameLen);
    const name = flags & 0x800 ? new TextDecoder().decode(rawName) : strFromU8(rawName, true);
    // ZIP64 extra field: the 64-bit values of the fields set to 0xFFFFFFFF, in this order.
    for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen; ) {
      const id = view.getUint16(x, true);
      const len = view.getUint16(x + 2, true);
      if (id === 1) {
        let q = x + 4;
        const next = () => {
          const v = q + 8 <= x + 4 + len ? Number(view.getBigUint64(q, true)) : 0;
          q += 8;
          return v;
        };
        if (size32 === 0xffffffff) next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      x += 4 + len;
    }
    entries.push({ name, method, flags, compressedSize, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** An XML element with its children in document order. Namespace prefixes are removed (so Strict and Transitional OOXML read the same). */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Text content for '#text' nodes. */
  text?: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
});

type Ordered = Record<string, unknown>;

function convert(items: Ordered[]): XmlNode[] {
  const out: XmlNode[] = [];
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (key === ':@') continue;
      if (key === '#text') {
        out.push({ name: '#text', attrs: {}, children: [], text: String(item[key]) });
        continue;
      }
      const attrsRaw = (item[':@'] ?? {}) as Record<string, unknown>;
      const attrs: Record<string, string> = {};
      for (const [k, v] of Object.entries(attrsRaw)) attrs[k] = String(v);
      const kids = item[key];
      out.push({ name: key, attrs, children: Array.isArray(kids) ? convert(kids as Ordered[]) : [] });
    }
  }
  return out;
}

/** Parses an XML entry into its root element (null when absent). */
export function readXml(entries: ZipEntries, name: string): XmlNode | null {
  const data = entries[name];
  if (!data) return null;
  const nodes = convert(parser.parse(strFromU8(data)) as Ordered[]);
  return nodes.find((n) => n.name !== '#text' && n.name !== '?xml') ?? null;
}

export function childrenNamed(node: XmlNode | null | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

export function child(node: XmlNode | null | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

/** All descendants with this name, in document order (does not descend into matches). */
export function findAll(node: XmlNode, name: string, out: XmlNode[] = []): XmlNode[] {
  for (const c of node.children) {
    if (c.name === name) out.push(c);
    else findAll(c, name, out);
  }
  return out;
}

/** Concatenated text of all '#text' descendants. */
export function textOf(node: XmlNode): string {
  if (node.name === '#text') return node.text ?? '';
  return node.children.map(textOf).join('');
}

/** Relationship id → absolute part name for `<dir>/_rels/<file>.rels`. */
export function readRels(entries: ZipEntries, partName: string): Record<string, string> {
  const dir = path.posix.dirname(partName);
  const relsName = path.posix.join(dir, '_rels', `${path.posix.basename(partName)}.rels`);
  const root = readXml(entries, relsName);
  const out: Record<string, string> = {};
  for (const rel of childrenNamed(root, 'Relationship')) {
    const target = rel.attrs.Target ?? '';
    if (rel.attrs.TargetMode === 'External') continue;
    out[rel.attrs.Id] = target.startsWith('/') ? target.slice(1) : path.posix.normalize(path.posix.join(dir, target));
  }
  return out;
}

/** Title from docProps/core.xml (dc:title), if any. */
export function coreTitle(entries: ZipEntries): string | undefined {
  const root = readXml(entries, 'docProps/core.xml');
  const title = root ? child(root, 'title') : undefined;
  const text = title ? textOf(title).trim() : '';
  return text || undefined;
}
