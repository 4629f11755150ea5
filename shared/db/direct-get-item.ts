/**
 * GetItem as one signed POST, without the SDK's per-call machinery (decision 161).
 *
 * A read by key is the request path's one AWS call, and through the SDK it cost about 400 µs of
 * CPU on the project machine besides the socket: endpoint rules, retry bookkeeping, schema
 * serialization, a signer building four hash objects, a user-agent string. This middleware of
 * the key-read client (client.ts) sends the GetItem itself: DynamoDB's JSON protocol, SigV4 over
 * six headers, a keep-alive agent. It runs inside the client's middleware stack, after the IAM
 * check of `npm run verify:deploy`, with the client's own credentials, region and clock offset.
 * Whatever it does not answer with a 200 goes down the SDK's path unchanged: other commands, keys
 * that are not strings or numbers, every error status (throttling, a missing table, a rejected
 * signature), a socket that closed while the container was frozen. The SDK then retries and
 * throws its typed errors as it always did: a fault costs one more request, never another answer.
 */
import { createHmac, hash } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type {
  AttributeValue,
  DynamoDBClient,
  GetItemCommandInput,
  GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentity } from '@smithy/types';
import { log } from '../observability/logger.ts';

const GET_ITEM_TARGET = 'DynamoDB_20120810.GetItem';
const JSON_PROTOCOL = 'application/x-amz-json-1.0';

export interface JsonRequestToSign {
  /** The Host header: hostname, and ":port" when not the protocol's default. */
  host: string;
  region: string;
  /** X-Amz-Target, e.g. DynamoDB_20120810.GetItem. */
  target: string;
  body: string;
  credentials: AwsCredentialIdentity;
  date: Date;
}

// One-shot digests: no Hash object per call.
const sha256Hex = (text: string) => hash('sha256', text, 'hex');

let lastSigningKey: { scope: string; secret: string; key: Buffer } | undefined;

/** The SigV4 key of one day, region and service; a container derives it about once a day. */
function signingKey(secret: string, day: string, region: string): Buffer {
  const scope = `${day}/${region}`;
  if (lastSigningKey?.scope !== scope || lastSigningKey.secret !== secret) {
    let key = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    for (const part of [region, 'dynamodb', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
    lastSigningKey = { scope, secret, key };
  }
  return lastSigningKey.key;
}

/**
 * The headers of a DynamoDB JSON-protocol POST to "/", signed with SigV4 (headers, not query):
 * the Authorization the SDK's signer computes for the same headers, time and credentials
 * (test/unit/direct-get-item.test.ts compares them).
 */
export function signedJsonHeaders(request: JsonRequestToSign): Record<string, string> {
  const amzDate = request.date.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const { accessKeyId, secretAccessKey, sessionToken } = request.credentials;
  // Listed in canonical (sorted) order.
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = {
    'content-type': JSON_PROTOCOL,
    host: request.host,
    // The SDK's DynamoDB client sends and signs the payload hash too.
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
    ...(sessionToken ? { 'x-amz-security-token': sessionToken } : {}),
    'x-amz-target': request.target,
  };
  const names = Object.keys(headers);
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    'POST',
    '/',
    '',
    names.map((name) => `${name}:${headers[name]}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${request.region}/dynamodb/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac('sha256', signingKey(secretAccessKey, day, request.region))
    .update(stringToSign)
    .digest('hex');
  const credential = `Credential=${accessKeyId}/${scope}`;
  headers.authorization = `AWS4-HMAC-SHA256 ${credential}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** A key the JSON body carries as it is: every attribute a string or a number. */
function isPlainKey(key: GetItemCommandInput['Key']): boolean {
  if (!key) return false;
  for (const value of Object.values(key)) if (typeof value.S !== 'string' && typeof value.N !== 'string') return false;
  return true;
}

/** The JSON protocol sends binaries as base64; the SDK hands them out as bytes. */
function decodeBinaries(value: AttributeValue): AttributeValue {
  const wire = value as unknown as Record<string, unknown>;
  if (typeof wire.B === 'string') return { B: new Uint8Array(Buffer.from(wire.B, 'base64')) };
  if (Array.isArray(wire.BS)) return { BS: (wire.BS as string[]).map((b) => new Uint8Array(Buffer.from(b, 'base64'))) };
  if (value.L) return { L: value.L.map(decodeBinaries) };
  if (value.M) return { M: decodeItem(value.M) };
  return value;
}

function decodeItem(item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const decoded: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(item)) decoded[name] = decodeBinaries(value);
  return decoded;
}

interface Endpoint {
  url: URL;
  agent: http.Agent;
  send: typeof http.request;
}

interface Reply {
  status: number;
  body: string;
  requestId?: string;
}

function post(endpoint: Endpoint, headers: Record<string, string>, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = endpoint.send({
      protocol: endpoint.url.protocol,
      hostname: endpoint.url.hostname,
      port: endpoint.url.port || undefined,
      path: '/',
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: endpoint.agent,
    });
    request.once('error', reject);
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('error', reject);
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: text,
          requestId: response.headers['x-amzn-requestid'] as string,
        }),
      );
    });
    request.end(body);
  });
}

type ResolvedConfig = DynamoDBClient['config'];

/** Where the client sends its requests (a custom endpoint, or the region's as the SDK's rules name it). */
async function resolveEndpoint(
  config: ResolvedConfig,
  customEndpoint: string | undefined,
): Promise<Endpoint | undefined> {
  const resolved = config.endpointProvider({
    Region: await config.region(),
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
    Endpoint: customEndpoint,
    // The regional endpoint: always valid, and needs no account id from the credentials.
    AccountIdEndpointMode: 'disabled',
  });
  const url = new URL(resolved.url.href);
  // Only the plain endpoint shapes: a path prefix or endpoint headers go through the SDK.
  if (url.pathname !== '/' || Object.keys(resolved.headers ?? {}).length) return undefined;
  const secure = url.protocol === 'https:';
  // As the SDK's own handler: keep-alive, up to 50 sockets.
  const agentOptions = { keepAlive: true, maxSockets: 50 };
  return secure
    ? { url, agent: new https.Agent(agentOptions), send: https.request }
    : { url, agent: new http.Agent(agentOptions), send: http.request };
}

/** What the SDK would add: the Lambda trace header (its recursion-detection middleware). */
function traceHeader(): Record<string, string> {
  const traceId = process.env._X_AMZN_TRACE_ID;
  return process.env.AWS_LAMBDA_FUNCTION_NAME && traceId ? { 'x-amzn-trace-id': traceId } : {};
}

/**
 * Adds the direct GetItem to `client`'s middleware (lowest priority of its first step, so every
 * hook added before runs first). `customEndpoint` is the local stack's DynamoDB, unset in AWS.
 */
export function answerGetItemDirectly(client: DynamoDBClient, customEndpoint: string | undefined): DynamoDBClient {
  const config = client.config;
  let endpoint: Promise<Endpoint | undefined> | undefined;

  async function getItem(input: GetItemCommandInput): Promise<GetItemCommandOutput | undefined> {
    endpoint ??= resolveEndpoint(config, customEndpoint);
    const target = await endpoint;
    if (!target) return undefined;
    const body = JSON.stringify(input);
    const headers = signedJsonHeaders({
      host: target.url.host,
      region: await config.region(),
      target: GET_ITEM_TARGET,
      body,
      credentials: await config.credentials(),
      date: new Date(Date.now() + (config.systemClockOffset ?? 0)),
    });
    const reply = await post(target, { ...headers, ...traceHeader() }, body);
    if (reply.status !== 200) {
      // Expected only in faults (throttling, a missing table): a steady stream means the direct
      // request itself is wrong here, so it is worth a line.
      log().warn('Direct GetItem answered otherwise; the SDK sends it again', { status: reply.status });
      return undefined;
    }
    const output = JSON.parse(reply.body) as Omit<GetItemCommandOutput, '$metadata'>;
    const metadata = { httpStatusCode: 200, requestId: reply.requestId, attempts: 1, totalRetryDelay: 0 };
    // Binaries are rare (their "B" or "BS" key appears in the text first): most items skip the walk.
    const hasBinaries = reply.body.includes('"B":') || reply.body.includes('"BS":');
    const item = output.Item && hasBinaries ? decodeItem(output.Item) : output.Item;
    return { ...output, Item: item, $metadata: metadata };
  }

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as GetItemCommandInput;
      if (context.commandName !== 'GetItemCommand' || !isPlainKey(input.Key)) return next(args);
      try {
        const output = await getItem(input);
        if (output) return { output } as Awaited<ReturnType<typeof next>>;
      } catch (error) {
        // Usually a keep-alive socket the server closed while the container was frozen.
        log().debug('Direct GetItem failed; the SDK sends it again', { error: String(error) });
      }
      return next(args);
    },
    { step: 'initialize', priority: 'low', name: 'directGetItem' },
  );
  return client;
}
