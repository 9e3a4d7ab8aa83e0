// LanceDB's native x86-64 builds use AVX2 and FMA instructions: on a processor without them, the process that loads
// LanceDB dies at the first such instruction (SIGILL) without a message. Checked before a LanceDB process starts, so
// the user reads one sentence instead of a crash. Only x86-64 Linux is checked (from /proc/cpuinfo); arm64 builds need
// neither flag, and on other systems the flags are not readable without native code, so they are assumed present.
import * as fs from 'node:fs';

/** The instruction-set extensions LanceDB's x86-64 build needs, as /proc/cpuinfo names them. */
export const LANCE_CPU_FLAGS = ['avx2', 'fma'] as const;

/** The flags of LANCE_CPU_FLAGS missing from a /proc/cpuinfo text; none when it lists no flags at all (unknown). */
export function missingCpuFlags(cpuinfo: string): string[] {
  const line = cpuinfo.split('\n').find((l) => /^flags\s*:/.test(l));
  if (!line) return [];
  const flags = new Set(line.slice(line.indexOf(':') + 1).trim().split(/\s+/));
  return LANCE_CPU_FLAGS.filter((f) => !flags.has(f));
}

export interface CpuSupport {
  /** Flags LanceDB needs that this processor lacks (empty: fine, or not known). */
  missing: string[];
}

/** What this machine's processor lacks for LanceDB. `platform`, `arch` and `readCpuinfo` are for tests. */
export function lanceCpuSupport(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  readCpuinfo: () => string = () => fs.readFileSync('/proc/cpuinfo', 'utf8'),
): CpuSupport {
  if (platform !== 'linux' || arch !== 'x64') return { missing: [] };
  let text: string;
  try {
    text = readCpuinfo();
  } catch {
    return { missing: [] };
  }
  return { missing: missingCpuFlags(text) };
}

/** The sentence shown instead of a crash (English; the extension shows its own translation). */
export function cpuProblemMessage(missing: readonly string[]): string {
  return `This processor lacks ${missing.map((f) => f.toUpperCase()).join(' and ')}, which the LanceDB index store needs, so Docs RAG cannot index or search on this machine.`;
}
