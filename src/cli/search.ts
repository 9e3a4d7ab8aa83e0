// docs-rag search (placeholder until its owner lands it)
export async function run(_argv: string[]): Promise<number> {
  throw new Error('docs-rag search is not implemented yet');
}
