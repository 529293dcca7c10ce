// Placeholder until the command lands; replaced by its owner.
export const usage = '  root-key ...  (not built yet)';
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('root-key: not built yet\n');
  return 1;
}
