// LanceDB's Rust log goes to stderr (warnings such as "No existing dataset"); keep only errors unless the user asks.
// Imported before '@lancedb/lancedb' so the native module sees it when it loads.
if (!process.env.LANCEDB_LOG) process.env.LANCEDB_LOG = 'error';
export {};
