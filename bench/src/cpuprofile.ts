/**
 * Where a V8 CPU profile (.cpuprofile, from `node --cpu-prof`) spends its time: self time per
 * function (the function on top of the stack when sampled) and per area (a package under
 * node_modules, a workspace directory such as libs/store, Node's internals, GC). Self time says
 * what to make faster; the caller is found in the profile (Chrome DevTools) once the name is known.
 */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface Hotspot {
  name: string;
  /** Milliseconds of self time. */
  selfMs: number;
  /** Share of the busy time (everything but idle). */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  functions: Hotspot[];
  areas: Hotspot[];
}

/** Area of a script URL: `ioredis`, `libs/store`, `node:internal`, ... */
export function areaOf(url: string): string {
  if (url === '') return '(native/vm)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const workspace = /\/(libs|services|tools|bench|infra)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const repo = /\/(libs|services|tools|bench|infra)\/.*/.exec(url);
  return repo ? repo[0].slice(1) : url.replace(/^file:\/\//, '');
}

function top(map: Map<string, number>, busyMs: number, count: number): Hotspot[] {
  return [...map]
    .map(([name, selfMs]) => ({ name, selfMs, share: selfMs / Math.max(busyMs, 1e-9) }))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, count);
}

export function summarizeProfile(profile: CpuProfile, count = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, n) => {
    // timeDeltas[n] is the time since the previous sample: attributed to this sample's frame.
    const ms = (profile.timeDeltas[n] ?? 0) / 1000;
    totalMs += ms;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    const special = frame.functionName.startsWith('(');
    const name = special
      ? frame.functionName
      : `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const area = special ? frame.functionName : areaOf(frame.url);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  });
  const busyMs = totalMs - idleMs;
  return { totalMs, busyMs, functions: top(functions, busyMs, count), areas: top(areas, busyMs, 12) };
}

export function formatSummary(title: string, s: ProfileSummary): string {
  const line = (h: Hotspot) =>
    `  ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.selfMs.toFixed(0).padStart(7)} ms  ${h.name}`;
  return [
    `${title}: busy ${(s.busyMs / 1000).toFixed(1)} s of ${(s.totalMs / 1000).toFixed(1)} s`,
    ' by area (self time):',
    ...s.areas.map(line),
    ' top functions (self time):',
    ...s.functions.map(line),
  ].join('\n');
}
