/** Progress lines on stderr (stdout carries the result table), with the time since the bench started. */
const started = Date.now();

export function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}
