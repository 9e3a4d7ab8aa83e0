// The processor check before LanceDB loads (src/rag/store/cpu.ts): LanceDB's x86-64 build needs AVX2 and FMA; without
// them its process dies of SIGILL, so the extension and the CLI say why instead. Simulated /proc/cpuinfo texts.
import * as assert from 'node:assert/strict';
import { cpuProblemMessage, lanceCpuSupport, missingCpuFlags } from '../../src/rag/store/cpu';

const cpuinfo = (flags: string) =>
  `processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: test\nflags\t\t: ${flags}\nbugs\t\t: spectre_v1\n\nprocessor\t: 1\nflags\t\t: ${flags}\n`;
// Intel Sandy Bridge (2011): AVX, but neither AVX2 nor FMA.
const SANDY_BRIDGE =
  'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx rdtscp lm constant_tsc pni pclmulqdq ssse3 cx16 sse4_1 sse4_2 x2apic popcnt aes xsave avx lahf_lm xsaveopt';
// Intel Haswell (2013) and later: both.
const HASWELL = `${SANDY_BRIDGE} fma movbe f16c rdrand fsgsbase bmi1 avx2 smep bmi2 erms invpcid`;

describe('store: the processor check for LanceDB', () => {
  it('finds nothing missing on a processor with AVX2 and FMA', () => {
    assert.deepEqual(missingCpuFlags(cpuinfo(HASWELL)), []);
  });

  it('names AVX2 and FMA on a processor with AVX only', () => {
    assert.deepEqual(missingCpuFlags(cpuinfo(SANDY_BRIDGE)), ['avx2', 'fma']);
  });

  it('matches whole flags: fma4 and avx512f are not fma and avx2', () => {
    assert.deepEqual(missingCpuFlags(cpuinfo(`${SANDY_BRIDGE} fma4 avx512f`)), ['avx2', 'fma']);
    assert.deepEqual(missingCpuFlags(cpuinfo(`${SANDY_BRIDGE} fma4 avx2`)), ['fma']);
  });

  it('assumes support when the flags are unknown: no flags line, unreadable file, another system or arm64', () => {
    assert.deepEqual(missingCpuFlags('processor\t: 0\nmodel name\t: test\n'), []);
    assert.deepEqual(lanceCpuSupport('linux', 'x64', () => { throw new Error('EACCES'); }), { missing: [] });
    assert.deepEqual(lanceCpuSupport('win32', 'x64', () => cpuinfo(SANDY_BRIDGE)), { missing: [] });
    assert.deepEqual(lanceCpuSupport('linux', 'arm64', () => cpuinfo('fp asimd evtstrm aes pmull sha1 sha2 crc32')), { missing: [] });
  });

  it('reads /proc/cpuinfo on x86-64 Linux and says in one sentence why nothing can be indexed', () => {
    const support = lanceCpuSupport('linux', 'x64', () => cpuinfo(SANDY_BRIDGE));
    assert.deepEqual(support, { missing: ['avx2', 'fma'] });
    const message = cpuProblemMessage(support.missing);
    assert.match(message, /^This processor lacks AVX2 and FMA, which the LanceDB index store needs, so Docs RAG cannot index or search on this machine\.$/);
  });
});
