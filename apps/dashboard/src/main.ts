/**
 * The page's imperative shell: reads the view from the URL hash, asks the API (through @va/client) for the
 * queries of src/queries.ts, and draws. Everything it shows is also in `window.__dashboard`, which the
 * browser test compares with the API's own answers.
 */
import type { Datapoint, VerificationsQuery } from '@va/contracts';
import type { DashboardDebug } from './debug';
import { pickerOf } from './api-picker';
import { StackedChart } from './chart';
import { createVerificationsClient, describeError, isUnauthorized } from './api';
import { classify, clearCredential, loadCredential, saveCredential, type Credential } from './credential';
import { LiveUpdates } from './live';
import { buildQueries, type DashboardQueries } from './queries';
import { RefreshLoop, type RefreshStatus } from './refresh';
import { createRequestQueue } from './request-queue';
import { renderTop, renderTotals } from './render';
import { toCounts, topRows, toSeries } from './series';
import {
  effectiveGranularity,
  formatHash,
  GRANULARITY_CHOICES,
  parseHash,
  RANGES,
  REFRESH_CHOICES,
  splitList,
  type ViewState,
} from './view-state';

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} missing from index.html`);
  return node as T;
}

const filters = byId<HTMLFormElement>('filters');
const field = (name: string) => filters.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
const fillSelect = (
  select: HTMLSelectElement,
  values: readonly (string | number)[],
  label: (value: string | number) => string = String,
) => select.replaceChildren(...values.map((v) => new Option(label(v), String(v))));

fillSelect(field('range') as HTMLSelectElement, RANGES, (r) => `Last ${r}`);
fillSelect(field('granularity') as HTMLSelectElement, GRANULARITY_CHOICES);
fillSelect(byId<HTMLSelectElement>('refresh-interval'), REFRESH_CHOICES, (s) => `${s} s`);

const chart = new StackedChart(byId('chart'), byId('hover'));
let credential = loadCredential(sessionStorage);
let view = parseHash(location.hash);
let generation = 0;
/** Every request of the page goes through it (request-queue.ts: the service's concurrency limit). */
const requests = createRequestQueue();
window.__dashboard = { view, mode: credential?.kind ?? 'signedOut', refreshes: 0 };

/** The APIs the credential may read (GET /v1/apis.list); undefined until listed. */
let listedApis: string[] | undefined;

function showFilters(): void {
  const scope = credential?.kind === 'readToken' ? credential.scope : undefined;
  const picker = pickerOf(listedApis, view.apiId, scope);
  const apiSelect = field('apiId') as HTMLSelectElement;
  fillSelect(apiSelect, picker.options);
  apiSelect.value = picker.selected;
  apiSelect.disabled = picker.disabled;
  field('externalId').value = scope?.externalId ?? view.externalId;
  field('externalId').disabled = scope !== undefined;
  field('range').value = view.range;
  field('granularity').value = view.granularity;
  field('keyIds').value = view.keyIds.join(', ');
  field('tags').value = view.tags.join(', ');
  byId<HTMLSelectElement>('refresh-interval').value = String(view.refresh);
}

function readFilters(): ViewState {
  return {
    ...view,
    apiId: field('apiId').disabled ? view.apiId : field('apiId').value,
    externalId: field('externalId').disabled ? view.externalId : field('externalId').value.trim(),
    range: parseHash(`range=${field('range').value}`).range,
    granularity: parseHash(`granularity=${field('granularity').value}`).granularity,
    keyIds: splitList([field('keyIds').value]),
    tags: splitList([field('tags').value]),
    refresh: parseHash(`refresh=${byId<HTMLSelectElement>('refresh-interval').value}`).refresh,
  };
}

function showError(message: string | undefined): void {
  const box = byId('error');
  box.hidden = message === undefined;
  box.textContent = message ?? '';
  window.__dashboard.error = message;
}

function showSignedIn(): void {
  byId('sign-in').hidden = credential !== undefined;
  byId('board').hidden = credential === undefined;
  byId('sign-out').hidden = credential === undefined;
  byId('who').textContent =
    credential === undefined
      ? ''
      : credential.kind === 'rootKey'
        ? 'Signed in with a root key'
        : `End-user view: ${credential.scope.externalId} on ${credential.scope.apiId}${
            credential.expiresAt
              ? ` (token valid until ${new Date(credential.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC)`
              : ''
          }`;
  window.__dashboard.mode = credential?.kind ?? 'signedOut';
}

async function refresh(): Promise<void> {
  const current = credential;
  if (!current) return;
  const scope = current.kind === 'readToken' ? current.scope : undefined;
  if (!scope && !view.apiId) {
    showError(
      listedApis?.length === 0
        ? 'This root key may read no API of its workspace: it needs api.*.read_api or api.<apiId>.read_api.'
        : 'Pick an API to see its verifications.',
    );
    return;
  }
  const mine = ++generation;
  const queries = buildQueries(view, Date.now(), scope);
  const client = createVerificationsClient(location.origin, current.secret);
  const ask = (q: VerificationsQuery) => requests.run(() => client.getVerifications(q));
  try {
    // Asked in the order the page shows them: the queue starts the first two, the rest as they finish.
    const [totals, series, keys, identities, tags, regions] = await Promise.all([
      ask(queries.totals),
      ask(queries.series),
      ask(queries.topKeys),
      ask(queries.topIdentities),
      ask(queries.topTags),
      ask(queries.topRegions),
    ]);
    if (mine !== generation) return; // the view changed meanwhile; a newer refresh draws
    const counts = toCounts(totals.datapoints[0]);
    const top = (rows: Datapoint[]) => topRows(rows, counts.total);
    const drawn: DashboardDebug = {
      ...window.__dashboard,
      view,
      queries,
      series: toSeries(series.datapoints),
      totals: counts,
      top: {
        keys: top(keys.datapoints),
        identities: top(identities.datapoints),
        tags: top(tags.datapoints),
        regions: top(regions.datapoints),
      },
      precision: series.precision,
    };
    drawn.chart = chart.update(drawn.series!, effectiveGranularity(view));
    renderTotals(byId('totals'), counts);
    renderTop(byId('top-keys'), drawn.top!.keys, 'No keys in this range.');
    renderTop(byId('top-identities'), drawn.top!.identities, 'No identities in this range.');
    renderTop(byId('top-tags'), drawn.top!.tags, 'No tags in this range.');
    renderTop(byId('top-regions'), drawn.top!.regions, 'No regions in this range.');
    byId('precision').hidden = series.precision === 'hour';
    byId('precision').textContent = `Older slices are answered from ${series.precision} rollups.`;
    byId('updated').textContent = `Updated ${new Date().toISOString().slice(11, 19)} UTC`;
    window.__dashboard = drawn;
    showError(undefined);
    followLive(current, queries);
  } catch (error) {
    if (mine !== generation) return;
    if (isUnauthorized(error)) signOut('The key or token was refused (revoked or expired?): sign in again.');
    else showError(describeError(error));
  } finally {
    window.__dashboard.refreshes++;
  }
}

function showStatus(status: RefreshStatus): void {
  byId('countdown').textContent = status.running
    ? 'refreshing…'
    : status.paused
      ? 'paused'
      : `${status.live ? 'live · ' : ''}next in ${status.remainingSeconds} s`;
  byId('pause').textContent = status.paused ? 'Resume' : 'Pause';
  byId('pause').setAttribute('aria-pressed', String(status.paused));
}

const loop = new RefreshLoop(refresh, showStatus, view.refresh);

/** The stream that says when to refresh (live.ts); the page polls while there is none. */
const live = new LiveUpdates({
  onAnswer(total, first) {
    // The first answer only matters when it is newer than what the last refresh drew.
    if (first && total === window.__dashboard.totals?.total) return;
    window.__dashboard.streamUpdates = (window.__dashboard.streamUpdates ?? 0) + 1;
    if (!loop.paused) void loop.now();
  },
  onMode(mode) {
    window.__dashboard.live = mode;
    loop.setLive(mode === 'stream');
  },
  onError(error) {
    if (isUnauthorized(error)) signOut('The key or token was refused (revoked or expired?): sign in again.');
  },
});

/** Opens the stream of the view's totals, without an end (kept while the view and the credential stay). */
function followLive(current: Credential, queries: DashboardQueries): void {
  const open: VerificationsQuery = { ...queries.totals };
  delete open.end;
  // The key leaves out the start, which moves with every refresh: the same view keeps its stream.
  const { start: _start, ...same } = open;
  const client = createVerificationsClient(location.origin, current.secret);
  live.follow(client, open, JSON.stringify(same));
}

/** Lists the APIs for the picker (a read token has its one), shows the first if the view names none, refreshes. */
async function start(current: Credential): Promise<void> {
  if (current.kind === 'rootKey') {
    try {
      const client = createVerificationsClient(location.origin, current.secret);
      const { apis } = await requests.run(() => client.listApis());
      if (current !== credential) return; // signed out meanwhile
      listedApis = apis.map((api) => api.apiId);
    } catch (error) {
      if (current !== credential) return;
      if (isUnauthorized(error)) return signOut('The key was refused (revoked?): sign in again.');
      showError(describeError(error)); // the view's API (from a link) can still be shown
    }
  } else listedApis = [current.scope.apiId];
  window.__dashboard.apis = listedApis;
  if (!view.apiId && current.kind === 'rootKey' && listedApis?.[0]) {
    // In the address too, as if picked, so that the link shows the same view; no hashchange (no second refresh).
    view = { ...view, apiId: listedApis[0] };
    history.replaceState(null, '', `${location.pathname}${location.search}${formatHash(view)}`);
    window.__dashboard.view = view;
  }
  showFilters();
  loop.start();
}

function signOut(message = ''): void {
  clearCredential(sessionStorage);
  credential = undefined;
  listedApis = undefined;
  generation++;
  loop.stop();
  live.stop();
  byId('sign-in-error').textContent = message;
  showSignedIn();
}

byId<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>('secret');
  const result = classify(input.value);
  if ('error' in result) {
    byId('sign-in-error').textContent = result.error;
    return;
  }
  input.value = ''; // the field is not kept around in the DOM
  credential = result;
  saveCredential(sessionStorage, result);
  showSignedIn();
  showFilters();
  void start(result);
});

byId('sign-out').addEventListener('click', () => signOut());

filters.addEventListener('submit', (event) => {
  event.preventDefault();
  location.hash = formatHash(readFilters()); // hashchange applies it
});
for (const name of ['apiId', 'range', 'granularity'])
  field(name).addEventListener('change', () => filters.requestSubmit());
byId('refresh-interval').addEventListener('change', () => filters.requestSubmit());

window.addEventListener('hashchange', () => {
  view = parseHash(location.hash);
  window.__dashboard.view = view;
  showFilters();
  loop.setInterval(view.refresh);
  if (credential) void loop.now();
});

byId('pause').addEventListener('click', () => loop.setPaused(!loop.paused));
byId('refresh-now').addEventListener('click', () => void loop.now());

showSignedIn();
showFilters();
if (credential) void start(credential);
