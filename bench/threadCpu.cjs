// CPU seconds per thread of a Node process (Linux): preload it with `node --require ./bench/threadCpu.cjs …`. Samples
// /proc/self/task/*/stat (utime + stime) every 100 ms and prints one line "THREADCPU {…}" to stderr at exit: the main
// thread, then every thread with more than 0.5 s by name and id (parser workers and V8's platform threads are all named
// "node", LanceDB's are "tokio-rt-worker" and "lance-cpu"), milliseconds. A profile under load charges waiting for a core to
// whatever function runs; these counters are what the kernel charged.
const fs = require('fs');
const hz = 100;
const seen = new Map(); // tid -> {comm, ticks}
function sample() {
  let tids; try { tids = fs.readdirSync('/proc/self/task'); } catch { return; }
  for (const t of tids) {
    try {
      const s = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const ticks = +f[11] + +f[12];
      const prev = seen.get(t);
      if (!prev || prev.ticks <= ticks) seen.set(t, { comm, ticks });
    } catch {}
  }
}
const timer = setInterval(sample, 100); timer.unref();
process.on('exit', () => {
  sample();
  const by = new Map();
  for (const [t, v] of seen) { const k = v.comm.replace(/[0-9]+$/, "#") + (v.ticks > 50 ? ":" + t : ""); by.set(k, (by.get(k) || 0) + v.ticks); }
  const main = seen.get(String(process.pid));
  process.stderr.write('THREADCPU ' + JSON.stringify({ main: main && main.ticks * 10, ...Object.fromEntries([...by].map(([k, v]) => [k, v * 10])) }) + '\n');
});
