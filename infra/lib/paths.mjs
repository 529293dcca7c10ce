// Where the stack keeps things: downloads under .cache (safe to delete), state under .data (the stack's data).
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CACHE_DIR = path.join(ROOT, '.cache');
export const DATA_DIR = path.join(ROOT, '.data');
export const KAFKA_LIBS_DIR = path.join(CACHE_DIR, 'kafka', 'libs');
export const KAFKA_POM = path.join(ROOT, 'infra', 'kafka', 'pom.xml');
export const REDIS_CONF = path.join(ROOT, 'infra', 'redis.conf');
