// Unpacks data/lexicon/NAME.tsv.gz to NAME.tsv with its lookup table NAME.tsv.slots (the Lexicon's open-addressing
// table of line offsets, little-endian uint32), unless both are already newer than the .gz. Run by the build
// (esbuild.mjs); src/rag/search/lexicon.ts reads them when they are, and inflates and hashes the .gz otherwise.
//   node --import tsx scripts/lexicon/unpack.ts [DIR]
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Lexicon, unpackedFiles } from '../../src/rag/search/lexicon';

const dir = process.argv[2] ?? path.join(__dirname, '..', '..', 'data', 'lexicon');
for (const name of readdirSync(dir).filter((f) => f.endsWith('.tsv.gz'))) {
  const gz = path.join(dir, name);
  const { raw, slots } = unpackedFiles(gz);
  const newer = (f: string) => {
    try {
      return statSync(f).mtimeMs >= statSync(gz).mtimeMs;
    } catch {
      return false;
    }
  };
  if (newer(raw) && newer(slots)) continue;
  const bytes = gunzipSync(readFileSync(gz));
  const table = Lexicon.parse(bytes).slotTable;
  writeFileSync(raw, bytes);
  // Written after the .tsv: a table is only read when it is not older than its list.
  writeFileSync(slots, new Uint8Array(table.buffer, table.byteOffset, table.byteLength));
}
