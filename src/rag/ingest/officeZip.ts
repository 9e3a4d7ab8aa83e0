// Reading OOXML packages (docx/pptx/xlsx): ZIP entries with fflate, XML into a small ordered tree with fast-xml-parser.
import { strFromU8, unzipSync } from 'fflate';
import { XMLParser } from 'fast-xml-parser';
import * as path from 'path';
import { LoadError } from '../types';

export type ZipEntries = Record<string, Uint8Array>;

/** Unzips the entries that `want` accepts; a broken ZIP is a 'corrupt' LoadError. */
export function openZip(bytes: Uint8Array, label: string, want: (name: string) => boolean = () => true): ZipEntries {
  try {
    return unzipSync(bytes, { filter: (f) => want(f.name) });
  } catch (err) {
    throw new LoadError('corrupt', `cannot read ${label}: not a valid ZIP package (${(err as Error).message}). The file may be truncated or damaged; re-save it`);
  }
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
