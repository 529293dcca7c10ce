/** How the report writes numbers and tables. */
import { round } from './stats';

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (Number.isFinite(n) ? String(round(n)) : '-');
export const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
export const bytes = (n: number) =>
  n >= 2 ** 30
    ? `${round(n / 2 ** 30)} GiB`
    : n >= 2 ** 20
      ? `${round(n / 2 ** 20)} MiB`
      : `${round(n / 1024)} KiB`;

export function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}
