// Several vitest runs may share the local test servers (engineers run tests at the same time in one tree).
// Each run holds a lease file named after its pid; the servers are stopped only by the last run to leave.
// A lock file serializes "start if missing" so two runs never start two brokers on one port.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class Leases {
  private readonly leaseDir: string;
  private readonly lockFile: string;

  constructor(private readonly dir: string) {
    this.leaseDir = path.join(dir, 'leases');
    this.lockFile = path.join(dir, 'start.lock');
  }

  acquire(): void {
    fs.mkdirSync(this.leaseDir, { recursive: true });
    fs.writeFileSync(path.join(this.leaseDir, String(process.pid)), `${new Date().toISOString()}\n`);
  }

  /** Drops our lease and says whether any other live run still holds one. */
  releaseAndCheckOthers(): boolean {
    fs.rmSync(path.join(this.leaseDir, String(process.pid)), { force: true });
    let others = false;
    for (const name of fs.existsSync(this.leaseDir) ? fs.readdirSync(this.leaseDir) : []) {
      const pid = Number(name);
      if (Number.isSafeInteger(pid) && alive(pid)) others = true;
      else fs.rmSync(path.join(this.leaseDir, name), { force: true }); // a crashed run's lease
    }
    return others;
  }

  async withLock<T>(fn: () => Promise<T>, timeoutMs = 300_000): Promise<T> {
    fs.mkdirSync(this.dir, { recursive: true });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        fs.writeFileSync(this.lockFile, String(process.pid), { flag: 'wx' });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number(fs.readFileSync(this.lockFile, 'utf8').trim());
        if (!Number.isSafeInteger(holder) || !alive(holder)) fs.rmSync(this.lockFile, { force: true });
        else if (Date.now() > deadline)
          throw new Error(`test servers: lock ${this.lockFile} held by pid ${holder}`);
        else await sleep(250);
      }
    }
    try {
      return await fn();
    } finally {
      fs.rmSync(this.lockFile, { force: true });
    }
  }
}
