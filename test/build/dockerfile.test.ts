/**
 * The image cannot be built here (no Docker engine), and neither CI nor `npm test` builds it: this reads the
 * files and checks what can be checked without one. The Dockerfile names only paths that exist (or that the
 * build produces), only npm scripts that exist, copies every workspace manifest before `npm ci`, runs compiled
 * entries as a non-root user, and every stage starts from one maintained Node LTS image within package.json's
 * `engines`; docker-compose.yml starts only compiled entries or plain-Node infra scripts. Not checked: that the
 * base image exists, that `npm ci` succeeds inside it, that the image starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTargets } from '@va/infra/build';
import { nodeFlagsOf, serviceEnvOf } from '@va/infra/service-runtime';
import { ROOT } from '@va/infra/paths';

interface Instruction {
  stage: string;
  keyword: string;
  args: string;
}

/** Instructions with their stage's name (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Instruction[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const instructions: Instruction[] = [];
  let stage = '';
  lines.forEach((line, index) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `#${index}`;
    instructions.push({ stage, keyword: keyword.toUpperCase(), args });
  });
  return instructions;
}

/** The words of a COPY: flags apart, then sources and the destination. */
function copyParts(args: string) {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
}

/** The workspace folders of the root package.json ("libs/*" expanded). */
function workspaceDirs(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  return pkg.workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const base = pattern.slice(0, -2);
    return fs
      .readdirSync(path.join(ROOT, base))
      .map((name) => `${base}/${name}`)
      .filter((dir) => fs.existsSync(path.join(ROOT, dir, 'package.json')));
  });
}

/** `<workspace>/dist` of a workspace whose own `build` script makes it (the dashboard's page). */
function builtByWorkspace(relative: string): boolean {
  const workspace = path.posix.dirname(relative);
  const manifest = path.join(ROOT, workspace, 'package.json');
  if (path.posix.basename(relative) !== 'dist' || !fs.existsSync(manifest)) return false;
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> };
  return pkg.scripts?.build !== undefined;
}

const dockerfile = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const stages = [...new Set(dockerfile.map((i) => i.stage))];
const finalStage = stages.at(-1)!;
const scripts = Object.keys(
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts,
);
const built = buildTargets();

describe('Dockerfile', () => {
  it('copies only paths of the build context that exist and are not in .dockerignore', () => {
    const ignored = fs
      .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/^\*\*\//, ''))
      .filter(Boolean);
    const sources = dockerfile
      .filter((i) => i.keyword === 'COPY')
      .map((i) => copyParts(i.args))
      .filter((copy) => copy.from === undefined)
      .flatMap((copy) => copy.sources);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(fs.existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(ignored, `${source} is in .dockerignore`).not.toContain(source.replace(/\/$/, ''));
    }
  });

  it('copies from earlier stages only what they hold: manifests, installs or build outputs', () => {
    const outdirs = new Set(built.map((target) => target.outdir));
    for (const instruction of dockerfile.filter((i) => i.keyword === 'COPY')) {
      const { from, sources } = copyParts(instruction.args);
      if (from === undefined) continue;
      expect(stages.indexOf(from), `stage ${from}`).toBeGreaterThanOrEqual(0);
      expect(stages.indexOf(from)).toBeLessThan(stages.indexOf(instruction.stage));
      for (const source of sources) {
        const relative = path.posix.relative('/app', source);
        if (relative === '') continue; // the whole /app of that stage
        expect(
          outdirs.has(relative) || builtByWorkspace(relative) || fs.existsSync(path.join(ROOT, relative)),
          `${source} from ${from}`,
        ).toBe(true);
      }
    }
  });

  it('copies every workspace manifest before npm ci (npm ci refuses a lock file without them)', () => {
    const copied = dockerfile.filter((i) => i.keyword === 'COPY').flatMap((i) => copyParts(i.args).sources);
    for (const dir of workspaceDirs()) expect(copied, dir).toContain(`${dir}/package.json`);
    expect(copied).toContain('package-lock.json');
  });

  it('installs with npm ci, runs only npm scripts that exist', () => {
    const runs = dockerfile.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((run) => /\bnpm ci\b.*--omit=dev/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm ci\b(?!.*--omit)/.test(run))).toBe(true);
    expect(runs.join('\n')).not.toMatch(/\bnpm install\b/);
    const used = runs.flatMap((run) => [...run.matchAll(/\bnpm run ([\w:-]+)/g)].map((m) => m[1]!));
    expect(used).toContain('build');
    for (const script of used) expect(scripts, `npm run ${script}`).toContain(script);
  });

  it('#45 item 4: every stage starts from the same maintained Node LTS image, within engines', () => {
    const images = [
      ...new Set(dockerfile.filter((i) => i.keyword === 'FROM').map((i) => i.args.split(/\s+/)[0]!)),
    ];
    expect(images).toHaveLength(1);
    const major = Number(/^node:(\d+)-/.exec(images[0]!)?.[1]);
    // LTS lines are the even majors; Node 20 left maintenance on 2026-04-30.
    expect(major % 2, images[0]).toBe(0);
    expect(major, images[0]).toBeGreaterThanOrEqual(22);
    const engines = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    const minimum = Number(/^>=\s*(\d+)/.exec(engines)?.[1]);
    expect(major, `engines ${engines}`).toBeGreaterThanOrEqual(minimum);
  });

  it('runs a compiled entry that the build produces and copies into the final image, as a non-root user', () => {
    const final = dockerfile.filter((i) => i.stage === finalStage);
    const cmd = final.find((i) => i.keyword === 'CMD');
    const argv = JSON.parse(cmd!.args) as string[];
    expect(argv[0]).toBe('node');
    expect(argv.join(' ')).not.toContain('tsx');
    const entry = argv.find((arg) => arg.endsWith('.js'))!;
    expect(built.map((target) => target.main)).toContain(entry);
    const copiedOutdirs = final
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => copyParts(i.args).sources.map((s) => path.posix.relative('/app', s)));
    for (const target of built) expect(copiedOutdirs, target.outdir).toContain(target.outdir);
    const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
  });
});

describe('docker-compose.yml', () => {
  const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const commands = [...compose.matchAll(/^\s*command:\s*\[([^\]]*)\]/gm)].map((m) =>
    m[1]!.split(',').map((word) => word.trim().replace(/^'|'$/g, '')),
  );

  it('starts compiled services or plain-Node infra scripts, never tsx', () => {
    const nodeCommands = commands.filter((argv) => argv[0] === 'node');
    expect(nodeCommands.length).toBeGreaterThanOrEqual(4);
    const mains = built.map((target) => target.main);
    for (const argv of nodeCommands) {
      expect(argv.join(' ')).not.toContain('tsx');
      const script = argv.find((arg) => /\.m?js$/.test(arg))!;
      const ok =
        mains.includes(script) || (script.startsWith('infra/') && fs.existsSync(path.join(ROOT, script)));
      expect(ok, script).toBe(true);
    }
  });

  it('gives each service the Node flags npm start and the benchmarks give it', () => {
    const services = ['ingest', 'compactor', 'query'];
    for (const service of services) {
      const main = `services/${service}/dist/main.js`;
      const argv = commands.find((words) => words[0] === 'node' && words.includes(main));
      expect(argv, service).toBeDefined();
      expect(argv!.slice(1, argv!.indexOf(main)), service).toEqual(
        expect.arrayContaining(nodeFlagsOf(service)),
      );
    }
    expect(nodeFlagsOf('ingest').length).toBeGreaterThan(0);
  });

  it('gives each service the environment npm start and the benchmarks give it', () => {
    for (const service of ['ingest', 'compactor', 'query']) {
      // The service's block: from its name to the next top-level entry.
      const block = new RegExp(`^  ${service}:\\n((?:    .*\\n|\\n)*)`, 'm').exec(compose)?.[1];
      expect(block, service).toBeDefined();
      for (const [name, value] of Object.entries(serviceEnvOf(service))) {
        expect(block, `${service} ${name}`).toMatch(new RegExp(`^\\s+${name}: '?${value}'?$`, 'm'));
      }
    }
    expect(Object.keys(serviceEnvOf('ingest')).length).toBeGreaterThan(0);
  });
});
