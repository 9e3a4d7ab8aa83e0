// XLSX loader: each sheet becomes a section (heading with the sheet name) followed by one table block whose first row
// is the header. Shared strings, inline strings, numbers and booleans are read; Strict OOXML namespaces work because
// namespace prefixes are ignored and parts are found through relationships, not fixed names.
import type { Block, ParsedDocument } from '../types';
import { assignJoinedOffsets } from './extracted';
import { child, childrenNamed, coreTitle, openZip, readRels, readXml, textOf, type XmlNode } from './officeZip';
import { cleanInline, hasWords } from './normalize';

/** Text of a shared/inline string item: plain <t> or rich-text runs <r><t>; phonetic runs (<rPh>) are skipped. */
function stringItemText(si: XmlNode): string {
  let out = '';
  for (const c of si.children) {
    if (c.name === 't') out += textOf(c);
    else if (c.name === 'r') {
      const t = child(c, 't');
      if (t) out += textOf(t);
    }
  }
  return out;
}

/** Column index (0-based) of a cell reference such as "C12". */
function columnIndex(ref: string | undefined, fallback: number): number {
  const m = ref ? /^([A-Z]+)/i.exec(ref) : null;
  if (!m) return fallback;
  let n = 0;
  for (const ch of m[1].toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Built-in number formats that show dates or times. */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** For each cell style index: whether its number format shows a date/time. */
function dateStyles(styles: XmlNode | null): boolean[] {
  const custom = new Map<number, string>();
  for (const f of childrenNamed(child(styles, 'numFmts'), 'numFmt')) custom.set(Number(f.attrs.numFmtId), f.attrs.formatCode ?? '');
  return childrenNamed(child(styles, 'cellXfs'), 'xf').map((xf) => {
    const id = Number(xf.attrs.numFmtId ?? 0);
    if (BUILTIN_DATE_FORMATS.has(id)) return true;
    const code = custom.get(id);
    // Strip quoted literals, escapes and [colour]/[condition] parts before looking for date/time tokens.
    return code !== undefined && /[dmyhs]/i.test(code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, ''));
  });
}

/** Days from each system's serial 0 to 1970-01-01: 1900 system (with Excel's phantom 1900-02-29) and 1904 system. */
const EPOCH_1900 = 25569;
const EPOCH_1904 = 24107;

/** Excel serial date → ISO date, with the time when it is not midnight. */
function serialToIso(serial: number, date1904: boolean): string {
  const ms = Math.round((serial - (date1904 ? EPOCH_1904 : EPOCH_1900)) * 86_400_000);
  const iso = new Date(ms).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 16).replace('T', ' ');
}

/** Numbers as a person reads them: 2.5000000000000001E-2 → 0.025. */
function formatNumber(raw: string): string {
  const n = Number(raw);
  if (!Number.isFinite(n) || raw.trim() === '') return raw;
  return String(Number(n.toPrecision(15)));
}

function cellText(c: XmlNode, shared: string[], dates: boolean[], date1904: boolean): string {
  const type = c.attrs.t ?? 'n';
  const v = child(c, 'v');
  const raw = v ? textOf(v) : '';
  switch (type) {
    case 's': {
      const i = Number(raw);
      return Number.isInteger(i) && shared[i] !== undefined ? shared[i] : '';
    }
    case 'inlineStr': {
      const is = child(c, 'is');
      return is ? stringItemText(is) : raw;
    }
    case 'b':
      return raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
    case 'e':
      return '';
    case 'n': {
      const style = Number(c.attrs.s ?? 0);
      const n = Number(raw);
      if (raw !== '' && dates[style] && Number.isFinite(n) && n > 0 && n < 2_958_466) return serialToIso(n, date1904);
      return formatNumber(raw);
    }
    default:
      return raw;
  }
}

function sheetRows(sheet: XmlNode | null, shared: string[], dates: boolean[], date1904: boolean): string[][] {
  const data = child(sheet, 'sheetData');
  const rows: string[][] = [];
  for (const row of childrenNamed(data, 'row')) {
    const cells: string[] = [];
    let next = 0;
    for (const c of childrenNamed(row, 'c')) {
      const col = columnIndex(c.attrs.r, next);
      next = col + 1;
      if (col > 16_383) continue;
      const text = cleanInline(cellText(c, shared, dates, date1904));
      while (cells.length < col) cells.push('');
      cells[col] = text;
    }
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    if (cells.some((t) => t.length > 0)) rows.push(cells);
  }
  // Drop columns that are empty in every row (left margins are common in hand-made sheets).
  const width = Math.max(0, ...rows.map((r) => r.length));
  const used = Array.from({ length: width }, (_, i) => rows.some((r) => (r[i] ?? '') !== ''));
  return rows.map((r) => r.filter((_, i) => used[i]));
}

export function parseXlsx(bytes: Uint8Array): ParsedDocument {
  const entries = openZip(bytes, 'XLSX', (name) => name.endsWith('.xml') || name.endsWith('.rels'));
  const workbookPart = Object.values(readRels(entries, '')).find((t) => /(^|\/)workbook[^/]*\.xml$/.test(t)) ?? 'xl/workbook.xml';
  const workbook = readXml(entries, workbookPart);
  const rels = readRels(entries, workbookPart);
  const sharedPart = Object.values(rels).find((t) => /sharedStrings[^/]*\.xml$/i.test(t));
  const sharedRoot = sharedPart ? readXml(entries, sharedPart) : null;
  const shared = childrenNamed(sharedRoot, 'si').map(stringItemText);
  const stylesPart = Object.values(rels).find((t) => /styles[^/]*\.xml$/i.test(t));
  const dates = dateStyles(stylesPart ? readXml(entries, stylesPart) : null);
  // Workbooks made on old Macs (and some exporters) count days from 1904-01-01: <workbookPr date1904="1"/>.
  const date1904 = /^(1|true|on)$/i.test(child(workbook, 'workbookPr')?.attrs.date1904 ?? '');

  const blocks: Block[] = [];
  const sheets = childrenNamed(child(workbook, 'sheets'), 'sheet');
  const names: string[] = [];
  for (const sheet of sheets) {
    const name = sheet.attrs.name ?? `Sheet ${names.length + 1}`;
    names.push(name);
    if (sheet.attrs.state === 'veryHidden') continue;
    const part = rels[sheet.attrs.id];
    if (!part || !entries[part]) continue;
    const rows = sheetRows(readXml(entries, part), shared, dates, date1904);
    if (!rows.some((r) => r.some(hasWords))) continue;
    blocks.push({ kind: 'heading', level: 1, text: name, loc: {} });
    const width = Math.max(...rows.map((r) => r.length));
    const padded = rows.map((r) => [...r, ...Array<string>(width - r.length).fill('')]);
    blocks.push({ kind: 'table', text: padded.map((r) => r.join(' | ')).join('\n'), rows: padded, hasHeader: true, loc: {} });
  }
  assignJoinedOffsets(blocks);
  return { format: 'xlsx', title: coreTitle(entries), blocks, metadata: { sheets: names.join(', ') }, warnings: [] };
}
