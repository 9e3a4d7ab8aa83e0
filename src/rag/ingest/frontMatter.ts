// YAML front matter of Markdown/text files: metadata, never body text.
import { parse as parseYaml } from 'yaml';

export interface FrontMatter {
  /** Number of lines the front matter occupies (0 when there is none), including both `---` fences. */
  lineCount: number;
  metadata: Record<string, string>;
  title?: string;
  warnings: string[];
}

/** Reads a leading `---` … `---`/`...` block from lines split on \n. */
export function readFrontMatter(lines: string[]): FrontMatter {
  const none: FrontMatter = { lineCount: 0, metadata: {}, warnings: [] };
  if (lines.length < 2 || lines[0].replace(/\r$/, '').trimEnd() !== '---') return none;
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '').trimEnd();
    if (l === '---' || l === '...') {
      end = i;
      break;
    }
  }
  if (end < 0) return none;
  const metadata: Record<string, string> = {};
  let title: string | undefined;
  let data: unknown;
  try {
    data = parseYaml(lines.slice(1, end).join('\n'));
  } catch {
    data = undefined;
  }
  // Only a YAML mapping is front matter; anything else (a horizontal rule, prose between two `---` lines) is body text.
  if (!data || typeof data !== 'object' || Array.isArray(data)) return none;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
    if (key.toLowerCase() === 'title' && typeof value === 'string' && value.trim()) title = value.trim();
  }
  return { lineCount: end + 1, metadata, title, warnings: [] };
}
