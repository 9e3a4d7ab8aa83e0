// Preloaded into a child process (NODE_OPTIONS=--require …): at exit, writes the process's peak resident memory (kB,
// worker threads included) to the file named by DOCS_RAG_TEST_MAXRSS_FILE, so a test can bound a real run's memory.
const fs = require('node:fs');
const out = process.env.DOCS_RAG_TEST_MAXRSS_FILE;
if (out) process.on('exit', () => fs.writeFileSync(out, String(process.resourceUsage().maxRSS)));
