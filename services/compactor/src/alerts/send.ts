/**
 * One POST of a webhook (docs/alerts.md "Delivery"): no redirect is followed (a 3xx is a failure), the
 * attempt has a deadline, and unless private addresses are allowed the host is resolved here, every
 * address checked (address-policy.ts), and the connection made to the checked address itself (the
 * `lookup` of the request), so a second DNS answer cannot send it elsewhere. node:http rather than fetch:
 * fetch follows redirects unless told, and gives no hook between resolving and connecting.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { redactSecrets } from '@va/config';
import { isPublicAddress } from './address-policy';

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** ALERTS_ALLOW_PRIVATE_URLS: send to loopback, private and link-local addresses too. */
  allowPrivate: boolean;
}

export type SendResult =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'failed'; status?: number; error: string }
  | { outcome: 'refused'; error: string };

class RefusedAddress extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which is not a public address (ALERTS_ALLOW_PRIVATE_URLS is off)`);
    this.name = 'RefusedAddress';
  }
}

/** dns.lookup, keeping only the addresses the policy allows; none left is a RefusedAddress. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        const refused = new RefusedAddress(hostname, addresses[0]?.address ?? '(none)');
        return callback(refused as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

export async function sendWebhook(options: SendOptions): Promise<SendResult> {
  const url = new URL(options.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is not looked up: it is checked here.
  if (isIP(host) !== 0 && !options.allowPrivate && !isPublicAddress(host)) {
    return { outcome: 'refused', error: new RefusedAddress(host, host).message };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        lookup: checkedLookup(options.allowPrivate),
        agent: false, // a connection per attempt: a pooled one could have been made to another address
      },
      (response) => {
        const status = response.statusCode ?? 0;
        response.resume(); // the body is not read, only drained
        response.on('end', () => {
          if (status >= 200 && status < 300) done({ outcome: 'delivered', status });
          else if (status >= 300 && status < 400)
            done({ outcome: 'failed', status, error: `HTTP ${status}: redirects are not followed` });
          else done({ outcome: 'failed', status, error: `HTTP ${status}` });
        });
        response.on('error', (err) => done({ outcome: 'failed', status, error: messageOf(err) }));
      },
    );
    const timer = setTimeout(() => {
      done({ outcome: 'failed', error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (err) =>
      done(
        err instanceof RefusedAddress
          ? { outcome: 'refused', error: err.message }
          : { outcome: 'failed', error: messageOf(err) },
      ),
    );
    request.end(options.body);
  });
}

const messageOf = (err: unknown): string => redactSecrets(err instanceof Error ? err.message : String(err));
