// Hash of the HTML loader's blocks per file, to check that a change of the loader keeps its output: run it before and
// after the change and compare the two JSON files. Usage: node --import tsx bench/htmlSnapshot.ts <out.json> <dir>...
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { parseBytes } from '../src/rag/ingest';
function walk(d: string, o: string[] = []) { for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p, o); else o.push(p); } return o; }
(async () => {
  const [out, ...dirs] = process.argv.slice(2);
  const res: Record<string, string> = {};
  for (const d of dirs) for (const f of walk(d).filter((f) => /\.html?$/i.test(f))) {
    try { const doc = await parseBytes(fs.readFileSync(f), 'html', path.basename(f)); res[f] = crypto.createHash('sha1').update(JSON.stringify([doc.title, doc.blocks])).digest('hex'); }
    catch (e) { res[f] = 'ERR ' + (e as Error).message; }
  }
  fs.writeFileSync(out, JSON.stringify(res, null, 0));
  console.log(Object.keys(res).length, 'files');
})();
