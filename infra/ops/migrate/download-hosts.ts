/**
 * Where a migration download may go (decision 124): the source's own origin, the hosts the
 * operator names with `--allow-host` (the source's CDN or S3 emulator), and otherwise public
 * addresses only. The source names the media URLs, so without this a hostile or broken source
 * could make the crawl read the operator's loopback or private network and store the answer in
 * the site file. A hop to another host is resolved here, every address judged with the
 * service's own rules (shared/domain/address-policy.ts), and the connection is made to the vetted
 * address itself: no second lookup that a rebinding name could answer differently.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason, isAllowListed } from '../../../shared/domain/address-policy.ts';

export interface VettedAddress {
  address: string;
  family: number;
}

export type Resolve = (hostname: string) => Promise<VettedAddress[]>;

const defaultResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A download target the policy forbids; never retried, and it names the flag that allows it. */
export class DownloadRefusedError extends Error {
  constructor(url: URL, reason: string) {
    super(
      `Refusing to download from ${url.host}: ${reason}. The source names media URLs, so only its own ` +
        `origin, public addresses and --allow-host hosts are fetched; if ${url.host} is the source's ` +
        `media host, run again with --allow-host ${url.host}`,
    );
    this.name = 'DownloadRefusedError';
  }
}

/**
 * `undefined` when the URL's host is allow-listed (fetched as is); otherwise the one public
 * address to connect to. Throws DownloadRefusedError for a forbidden address, and a plain
 * Error (retried like a network error) when the name does not resolve.
 */
export async function vetDownloadHost(
  url: URL,
  allowHosts: string[],
  resolve: Resolve = defaultResolve,
): Promise<VettedAddress | undefined> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (isAllowListed(hostname, port, allowHosts)) return undefined;
  const addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await resolve(hostname);
  if (addresses.length === 0) throw new Error(`${hostname} has no addresses`);
  // Every address must be public: a name with one private address could be steered to it.
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw new DownloadRefusedError(url, isIP(hostname) ? reason : `it resolves to ${reason}`);
  }
  return addresses[0]!;
}

/** A lookup that answers the vetted address only, whatever the host name. */
function pinnedLookup({ address, family }: VettedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** A GET connected to the vetted address (TLS still checks the certificate for the host name). */
export function pinnedGet(
  url: URL,
  target: VettedAddress,
  headers: Headers,
  signal: AbortSignal,
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, {
      agent: false,
      lookup: pinnedLookup(target),
      signal,
      headers: Object.fromEntries(headers),
    });
    request.on('error', reject);
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.once('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) answerHeaders.append(name, one);
        }
        resolve({ status: response.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks) });
      });
    });
  });
}
