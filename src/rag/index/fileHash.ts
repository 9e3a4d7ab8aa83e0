// The content hash of a file, as the index records it (Node's fs and crypto only: the extension host uses it too).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

/** The content hash of a file's bytes (the parser workers hash what they read with it too). */
export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** sha256 hex of a file's bytes (read at once when small, streamed when large or of unknown size). */
export async function hashFile(abs: string, size?: number): Promise<string> {
  if (size !== undefined && size <= 8 << 20) return sha256(await fs.promises.readFile(abs));
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    const s = fs.createReadStream(abs, { highWaterMark: 1 << 20 });
    s.on('data', (d) => h.update(d));
    s.on('error', reject);
    s.on('end', () => resolve(h.digest('hex')));
  });
}
