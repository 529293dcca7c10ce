/**
 * Prometheus metrics of the section caches (@va/store SectionCache): the main thread's and the
 * read workers' (as each worker's last task reported them, read-pool.ts) added up at each scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SectionCacheStats } from '@va/store';

export function registerSectionCacheMetrics(registry: Registry, stats: () => SectionCacheStats): void {
  const counter = (
    name: string,
    help: string,
    field: 'hits' | 'misses' | 'monthHits' | 'dayHits' | 'minuteHourHits',
  ) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(stats()[field]);
      },
    });
  counter(
    'va_query_section_cache_hits_total',
    'Sealed sections answered from the cache (Redis confirmed the cached version)',
    'hits',
  );
  counter(
    'va_query_section_cache_misses_total',
    'Sealed sections Redis sent (none cached, or a newer version)',
    'misses',
  );
  counter(
    'va_query_section_cache_month_hits_total',
    'Months whose cached day sections were summed after one check of the month (@va/store rollup-children.ts)',
    'monthHits',
  );
  counter(
    'va_query_section_cache_day_hits_total',
    "UTC days whose cached hour sections were summed after one check of the day (a zone's edge hours: @va/store rollup-children.ts)",
    'dayHits',
  );
  counter(
    'va_query_section_cache_minute_hour_hits_total',
    "Hours whose cached minutes split a zone's edge after one check of the hour (@va/store read/minute-hours.ts)",
    'minuteHourHits',
  );
  const gauge = (name: string, help: string, field: 'bytes' | 'entries') =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(stats()[field]);
      },
    });
  gauge('va_query_section_cache_bytes', 'Bytes of decoded sections held by the section caches', 'bytes');
  gauge('va_query_section_cache_entries', 'Decoded sections held by the section caches', 'entries');
}
