/**
 * The official OpenSearch client as a side bundle (`#opensearch-client`, package.json "imports"):
 * only a site whose search engine is OpenSearch loads it, with its first search or index write,
 * so the embedded path's cold start never parses it (decision 292).
 * An AWS endpoint is signed with SigV4 by the client's own AWS signer, with the AWS SDK's
 * credential provider (the function's role): `aoss` for a serverless collection, `es` for a
 * domain. An http(s) URL elsewhere (a local cluster, OPENSEARCH_URL of the opt-in test) is not.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws';
import type { OpenSearchApi } from './opensearch-adapter.ts';

/** `aoss` or `es` for an endpoint of Amazon OpenSearch Service; undefined for another host. */
export function awsServiceOf(endpoint: string): 'aoss' | 'es' | undefined {
  const host = new URL(endpoint).hostname;
  if (host.endsWith('.aoss.amazonaws.com')) return 'aoss';
  if (host.endsWith('.es.amazonaws.com')) return 'es';
  return undefined;
}

export function createOpenSearchClient(endpoint: string, region: string): OpenSearchApi {
  const service = awsServiceOf(endpoint);
  const client = new Client({
    node: endpoint,
    // A search waits at most this long; the indexer's bulk requests too (Lambda retries a batch).
    requestTimeout: 10_000,
    maxRetries: 2,
    ...(service ? AwsSigv4Signer({ region, service, getCredentials: defaultProvider() }) : {}),
  });
  // The client's typings are wider than what the adapter calls; every answer is parsed there.
  return client as unknown as OpenSearchApi;
}
