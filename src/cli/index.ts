// docs-rag index (placeholder until its owner lands it)
export async function run(_argv: string[]): Promise<number> {
  throw new Error('docs-rag index is not implemented yet');
}
