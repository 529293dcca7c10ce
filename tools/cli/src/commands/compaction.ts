// Placeholder until the command lands; replaced by its owner.
export const usage = '  compaction ...  (not built yet)';
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('compaction: not built yet\n');
  return 1;
}
