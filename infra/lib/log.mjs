// One tiny logger for the infra scripts: they run before npm install, so no pino here.
export function makeLog(scope) {
  return (message) => process.stderr.write(`[${scope}] ${message}\n`);
}
