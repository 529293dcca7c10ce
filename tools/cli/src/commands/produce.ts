// Placeholder until the command lands; replaced by its owner.
export const usage = '  produce ...  (not built yet)';
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('produce: not built yet\n');
  return 1;
}
