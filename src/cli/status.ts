// docs-rag status (placeholder until its owner lands it)
export async function run(_argv: string[]): Promise<number> {
  throw new Error('docs-rag status is not implemented yet');
}
