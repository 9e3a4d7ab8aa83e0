// Builds a small PDF whose single page carries a huge Flate-compressed content stream of text operators: a few hundred
// kB on disk, millions of text items for pdf.js to process synchronously. Used to prove that the parser deadline
// really stops a PDF parse.
import { zlibSync } from 'fflate';

export function textBombPdf(operators: number): Uint8Array {
  const ops: string[] = ['BT /F1 2 Tf'];
  // Repetitive on purpose: compresses about 1000:1.
  for (let i = 0; i < operators; i++) ops.push(i % 390 === 0 ? '-2 778 Td (w) Tj' : '0 -2 Td (w) Tj');
  ops.push('ET');
  const content = zlibSync(new TextEncoder().encode(ops.join('\n')), { level: 6 });
  const objects: Array<string | Uint8Array[]> = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  const push = (chunk: Uint8Array): void => {
    parts.push(chunk);
    length += chunk.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    push(enc.encode(`${i + 1} 0 obj\n${body as string}\nendobj\n`));
  });
  offsets.push(length);
  push(enc.encode(`5 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`));
  push(content);
  push(enc.encode('\nendstream\nendobj\n'));
  const xrefAt = length;
  const xref = ['xref', `0 ${offsets.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)];
  push(enc.encode(`${xref.join('\n')}\ntrailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`));
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
