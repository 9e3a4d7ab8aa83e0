// docs-rag eval (placeholder until its owner lands it)
export async function run(_argv: string[]): Promise<number> {
  throw new Error('docs-rag eval is not implemented yet');
}
