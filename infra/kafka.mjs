// A single-node KRaft Kafka broker (broker + controller in one JVM) run from the jars Maven fetched:
// no Docker and no Kafka distribution needed. Used by the stack (ports 9092/9093, data in .data/kafka)
// and by the test harness (its own ports and directory).
//   node infra/kafka.mjs start|stop|status   (the stack's broker; prefer `npm run stack`)
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR, KAFKA_LIBS_DIR } from './lib/paths.mjs';
import { ensureKafkaJars } from './lib/install.mjs';
import { fetchMetadata } from './lib/kafka-wire.mjs';
import { makeLog } from './lib/log.mjs';
import {
  isOurProcess,
  portOpen,
  readPid,
  removeFile,
  spawnDaemon,
  stopPid,
  waitUntil,
  writePid,
} from './lib/proc.mjs';

const DAY_MS = 86_400_000;
/** Operators rebuild Redis from the topics, so Kafka keeps events longer than the longest rollup (5 years). */
export const KAFKA_RETENTION_MS = (5 * 366 + 60) * DAY_MS;
const HOST = '127.0.0.1';

/** @param {{ stateDir?: string, port?: number, controllerPort?: number, advertisedPort?: number }} options */
function layout({
  stateDir = path.join(DATA_DIR, 'kafka'),
  port = 9092,
  controllerPort = 9093,
  advertisedPort = port,
} = {}) {
  return {
    stateDir,
    port,
    controllerPort,
    advertisedPort,
    dataDir: path.join(stateDir, 'data'),
    pidFile: path.join(stateDir, 'kafka.pid'),
    logFile: path.join(stateDir, 'kafka.out.log'),
    propertiesFile: path.join(stateDir, 'server.properties'),
    log4jFile: path.join(stateDir, 'log4j.properties'),
    clusterIdFile: path.join(stateDir, 'cluster.id'),
  };
}

function serverProperties(l) {
  return `# Written by infra/kafka.mjs on every start; edit that file, not this one.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${HOST}:${l.controllerPort}
listeners=PLAINTEXT://${HOST}:${l.port},CONTROLLER://${HOST}:${l.controllerPort}
advertised.listeners=PLAINTEXT://${HOST}:${l.advertisedPort}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${l.dataDir}
num.partitions=4
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# Lets a client choose a session timeout from 1 s (Kafka's default minimum is 6 s): the tests that SIGKILL
# workers use ~3 s, so a dead member's partitions move quickly. Clients still choose their own (ours: 30 s).
group.min.session.timeout.ms=1000
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
log.retention.ms=${KAFKA_RETENTION_MS}
# Fewer, smaller internal partitions: faster first start on a small machine.
offsets.topic.num.partitions=10
transaction.state.log.num.partitions=4
`;
}

function log4jProperties(level) {
  return `log4j.rootLogger=${level}, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=${level}
log4j.logger.org.apache.kafka=${level}
`;
}

/** Kafka's own cluster-id format: 16 random bytes, base64url; it never hands out one starting with '-'. */
function clusterId(file) {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  let id;
  do id = crypto.randomBytes(16).toString('base64url');
  while (id.startsWith('-'));
  fs.writeFileSync(file, `${id}\n`);
  return id;
}

/**
 * JVM flags by the broker's use (option `jvm`).
 *   - `server` (the stack's broker, the default): G1 with short pauses, and the C2 compiler for the hot
 *     paths of a broker that runs for days.
 *   - `light` (brokers that tests start and stop, and the one-shot storage tool): the serial collector and
 *     the C1 compiler only. Such a broker lives for minutes and carries test traffic, and C2's compiling
 *     was most of its CPU. On the exactly-once test (320,000 events, ~105 s) the broker used 8.2 CPU-s
 *     against 14.0 (start included: 1.7 against 2.6), with the same wall time.
 */
const JVM_FLAGS = {
  server: ['-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20'],
  light: ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'],
};

function java(args, jvmOptions = []) {
  return ['java', [...jvmOptions, '-cp', `${KAFKA_LIBS_DIR}/*`, ...args]];
}

function formatStorage(l) {
  if (fs.existsSync(path.join(l.dataDir, 'meta.properties'))) return;
  const [command, args] = java(
    [
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId(l.clusterIdFile),
      '-c',
      l.propertiesFile,
      '--ignore-formatted',
    ],
    [
      ...JVM_FLAGS.light,
      `-Dlog4j.configuration=file:${l.log4jFile.replace(/\.properties$/, '.quiet.properties')}`,
    ],
  );
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kafka storage format failed:\n${result.stdout}${result.stderr}`);
}

async function brokerReady(port) {
  const metadata = await fetchMetadata({ host: HOST, port });
  return metadata.brokers.length > 0 && metadata.controllerId >= 0;
}

/** Marks in the JVM command line that identify this broker (and not a recycled pid). */
function markers(l) {
  return ['kafka.Kafka', l.propertiesFile];
}

/**
 * Starts the broker unless the one recorded in stateDir is already running; waits until it answers metadata.
 * @returns {Promise<{ brokers: string, pid: number, reused: boolean, startMs: number }>}
 */
export async function startKafka(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('kafka');
  const started = Date.now();
  const existing = readPid(l.pidFile);
  if (isOurProcess(existing, markers(l))) {
    await waitUntil(() => brokerReady(l.port), { timeoutMs: 60_000, what: 'kafka', logFile: l.logFile });
    return { brokers: `${HOST}:${l.port}`, pid: existing, reused: true, startMs: Date.now() - started };
  }
  for (const port of [l.port, l.controllerPort]) {
    if (await portOpen(HOST, port))
      throw new Error(`kafka: port ${port} is already taken by another process`);
  }
  ensureKafkaJars();
  fs.mkdirSync(l.dataDir, { recursive: true });
  fs.writeFileSync(l.propertiesFile, serverProperties(l));
  fs.writeFileSync(l.log4jFile, log4jProperties(options.logLevel ?? 'INFO'));
  fs.writeFileSync(l.log4jFile.replace(/\.properties$/, '.quiet.properties'), log4jProperties('WARN'));
  const jvmFlags = JVM_FLAGS[options.jvm ?? 'server'];
  if (!jvmFlags) throw new Error(`kafka: jvm must be one of ${Object.keys(JVM_FLAGS).join(', ')}`);
  formatStorage(l);
  const [command, args] = java(
    ['kafka.Kafka', l.propertiesFile],
    [
      `-Xms${options.heapMin ?? '256m'}`,
      `-Xmx${options.heapMax ?? '768m'}`,
      ...jvmFlags,
      '-Djava.awt.headless=true',
      `-Dlog4j.configuration=file:${l.log4jFile}`,
    ],
  );
  fs.appendFileSync(l.logFile, `\n===== ${new Date().toISOString()} starting kafka on ${HOST}:${l.port}\n`);
  const child = spawnDaemon(command, args, { logFile: l.logFile, cwd: l.stateDir, env: process.env });
  writePid(l.pidFile, child.pid);
  log(`starting on ${HOST}:${l.port} (pid ${child.pid}, log ${l.logFile})`);
  try {
    await waitUntil(() => brokerReady(l.port), {
      timeoutMs: 120_000,
      what: 'kafka',
      child,
      logFile: l.logFile,
    });
  } catch (error) {
    await stopPid(child.pid, { timeoutMs: 5_000 });
    removeFile(l.pidFile);
    throw error;
  }
  const startMs = Date.now() - started;
  log(`ready on ${HOST}:${l.port} after ${(startMs / 1000).toFixed(1)} s`);
  return { brokers: `${HOST}:${l.port}`, pid: child.pid, reused: false, startMs };
}

/** Stops the broker recorded in stateDir (controlled shutdown, SIGKILL after the timeout). */
export async function stopKafka(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('kafka');
  const pid = readPid(l.pidFile);
  if (isOurProcess(pid, markers(l))) {
    log(`stopping (pid ${pid})`);
    const stopped = await stopPid(pid, { timeoutMs: options.timeoutMs ?? 30_000 });
    if (!stopped) throw new Error(`kafka: pid ${pid} did not exit`);
  }
  removeFile(l.pidFile);
}

export async function kafkaStatus(options = {}) {
  const l = layout(options);
  const pid = readPid(l.pidFile);
  const running = isOurProcess(pid, markers(l));
  const ready = running && (await brokerReady(l.port).catch(() => false));
  return {
    running,
    ready,
    pid: running ? pid : undefined,
    brokers: `${HOST}:${l.port}`,
    stateDir: l.stateDir,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const command = process.argv[2];
  const actions = {
    start: () => startKafka(),
    stop: () => stopKafka(),
    status: () => kafkaStatus(),
  };
  const action = actions[command];
  if (!action) {
    console.error('usage: node infra/kafka.mjs start|stop|status');
    process.exit(2);
  }
  action().then(
    (result) => result && console.log(JSON.stringify(result)),
    (error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
