/**
 * Every environment variable Stepwise reads, parsed once with zod.
 * Defaults are the documented local defaults (docs/configuration.md); a deployed stack sets
 * each of them explicitly from CDK.
 */
import * as z from 'zod/mini';

const csv = (fallback: string) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((value: string) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  );

const flag = (fallback: boolean) =>
  z.pipe(
    z._default(z.string(), fallback ? 'true' : 'false'),
    z.transform((value: string) => ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase())),
  );

const int = (fallback: number) =>
  z.pipe(
    z._default(z.string(), String(fallback)),
    z.transform((value: string) => Number.parseInt(value, 10)),
  );

const optionalUrl = z.optional(z.string().check(z.url()));

const ConfigSchema = z.object({
  /** `local` (npm start and tests) or `aws` (a deployed stack). */
  STEPWISE_RUNTIME: z._default(z.enum(['local', 'aws']), 'aws'),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  TABLE_NAME: z._default(z.string(), 'stepwise'),
  MEDIA_BUCKET: z._default(z.string(), 'stepwise-media'),
  MODULES_BUCKET: z._default(z.string(), 'stepwise-modules'),
  MODULE_IMPORT_STATE_MACHINE_ARN: z._default(
    z.string(),
    'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
  ),
  /** The site export and import jobs (functions/pipeline/site-transfer.definition.ts). */
  SITE_EXPORT_STATE_MACHINE_ARN: z._default(
    z.string(),
    'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-site-export',
  ),
  SITE_IMPORT_STATE_MACHINE_ARN: z._default(
    z.string(),
    'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-site-import',
  ),
  /** Local engines only; unset in Lambda. */
  DDB_ENDPOINT: optionalUrl,
  S3_ENDPOINT: optionalUrl,
  SFN_ENDPOINT: optionalUrl,
  /** JSON map group name -> Lambda function name, used by the fallback router in AWS. */
  GROUP_FUNCTIONS: z._default(z.string(), '{}'),

  /** Public base URL of the site (links in mail, absolute urls in payloads). */
  STEPWISE_SITE_URL: z._default(z.string(), 'http://127.0.0.1:3000'),
  STEPWISE_SITE_NAME: z._default(z.string(), 'Stepwise'),
  /**
   * The content origin: where module packages' files are served, an origin that is not the site's
   * (decision 270). Locally the stack's second server sets it; unset, no module can be played.
   */
  STEPWISE_CONTENT_URL: z.optional(z.string()),
  /** The key content-origin tokens are sealed with (decision 270); locally a fixed development key when unset. */
  STEPWISE_CONTENT_SIGNING_KEY: z.optional(z.string().check(z.minLength(32))),
  /**
   * Where a deployed function reads that key instead, once per container at its first signing:
   * the ARN of the content stack's Secrets Manager secret. Set by CDK only on the functions of the
   * groups declaring `contentSigningKey` (decision 346); the key itself is in no configuration.
   */
  STEPWISE_CONTENT_SIGNING_KEY_ARN: z.optional(z.string().check(z.minLength(20))),
  /** The site's number in GET /sites/info (a site migrated from Dozuki keeps its siteid). */
  STEPWISE_SITE_ID: int(1),
  /** One line about the site, shown by the apps' site picker (GET /sites/info). */
  STEPWISE_SITE_DESCRIPTION: z._default(z.string(), ''),
  STEPWISE_PUBLIC_REGISTRATION: flag(false),
  /**
   * A private site answers 401 to anonymous callers on every route except login, registration
   * (while public registration is on), the password-reset pair and the API docs. `false`: a
   * public site, where published public guides are readable anonymously.
   */
  STEPWISE_PRIVATE_SITE: flag(true),
  /** Site languages; more than one enables the translation glossary. */
  STEPWISE_LANGUAGES: csv('en'),
  /** Accepted X-App-Id values; when public registration is on, login and register need one. */
  STEPWISE_APP_IDS: csv(''),
  STEPWISE_FEATURE_FLAGS: csv(''),
  STEPWISE_GUIDE_TYPES: csv('how-to'),
  /**
   * A guide's PDF larger than this is written to the media bucket and redirected to (a Lambda
   * answer holds 6 MB, base64-encoded); tests lower it to reach that path with a small guide.
   */
  STEPWISE_PDF_INLINE_MAX_BYTES: int(4_000_000),
  /** One guide PDF render's deadline and its child's heap limit (decision 255): past either, 503. */
  STEPWISE_PDF_DEADLINE_MS: int(15_000),
  STEPWISE_PDF_HEAP_MB: int(256),

  STEPWISE_TOKEN_TTL_DAYS: int(30),
  /**
   * The key that seals identity providers' secrets at rest (docs/identity.md). Unset: a fixed
   * development key locally; on AWS, storing a secret is refused until it is set.
   */
  STEPWISE_SECRETS_KEY: z.optional(z.string().check(z.minLength(16))),
  /**
   * Where a deployed function reads that key at cold start instead: the ARN of the Secrets
   * Manager secret the stateful stack makes (or the operator names). Set by CDK only on the
   * functions that seal or open provider secrets (decision 240).
   */
  STEPWISE_SECRETS_KEY_ARN: z.optional(z.string().check(z.minLength(20))),
  /**
   * Who may sign in with a password: `everyone`, or `admins` (break-glass Admins only; everyone
   * else signs in through the company's identity provider). Site info's `standard` says which.
   */
  STEPWISE_PASSWORD_LOGIN: z._default(z.enum(['everyone', 'admins']), 'everyone'),
  /**
   * The scrypt cost of new password hashes on the local stack only (tests: 1024, a sixteenth of the
   * work); a deployed site always uses 16384 (shared/accounts/passwords.ts, decision 352).
   */
  STEPWISE_LOCAL_PASSWORD_HASH_COST: z.pipe(
    z._default(z.enum(['1024', '2048', '4096', '8192', '16384']), '16384'),
    z.transform(Number),
  ),
  /**
   * The identity provider the apps and the login page send people to (its providerid, or
   * `remote_login`); site info reports its sign-in URL as `authentication.sso`. Unset: none.
   */
  STEPWISE_SSO_PROVIDER: z.optional(z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,39}$/))),
  STEPWISE_RESET_TOKEN_TTL_MINUTES: int(60),
  /** Failed logins allowed per account inside the window before 429. */
  STEPWISE_LOGIN_MAX_FAILURES: int(10),
  /** Failed logins allowed per client address (many people may share one) before 429. */
  STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS: int(100),
  STEPWISE_LOGIN_WINDOW_SECONDS: int(1800),

  /** Where the local mail port writes messages (one JSON file each). */
  STEPWISE_OUTBOX_DIR: z.optional(z.string()),
  /** Sender address of mail sent through SES on a deployed stack. */
  STEPWISE_MAIL_FROM: z._default(z.string(), 'no-reply@example.com'),
  /** Folder of local data (DynamoDB file, S3 objects, outbox); `npm start` only. */
  STEPWISE_DATA_DIR: z._default(z.string(), '.data'),
  /** The release (package.json `version`): set at synth on AWS, from package.json locally; GET /health shows it. */
  STEPWISE_VERSION: z._default(z.string(), 'unknown'),
  LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']), 'INFO'),
  /**
   * X-Ray tracing of the handler and of every AWS SDK client (Powertools tracer). Unset: on for
   * STEPWISE_RUNTIME=aws, off locally (tracingEnabled()).
   */
  STEPWISE_TRACING: z.optional(z.enum(['true', 'false'])),

  /**
   * Hosts (`host` or `host:port`, as written in URLs) that module imports by URL may fetch
   * although they resolve to private or loopback addresses. Empty on a real site; tests list
   * 127.0.0.1 for their local package server.
   */
  STEPWISE_FETCH_ALLOW_HOSTS: csv(''),
  /**
   * The search backend (docs/search.md, decision 292): `embedded` (the segmented index in the
   * modules bucket) or `opensearch` (Amazon OpenSearch Service at STEPWISE_OPENSEARCH_ENDPOINT).
   */
  STEPWISE_SEARCH_ENGINE: z._default(z.enum(['embedded', 'opensearch']), 'embedded'),
  /**
   * The OpenSearch endpoint (`https://<id>.<region>.aoss.amazonaws.com` for a serverless
   * collection, signed for `aoss`; an `*.es.amazonaws.com` domain is signed for `es`; an http URL
   * of a local cluster is not signed). Required with STEPWISE_SEARCH_ENGINE=opensearch.
   */
  STEPWISE_OPENSEARCH_ENDPOINT: optionalUrl,
  /** Largest module package (zip) accepted, uploaded or fetched. */
  STEPWISE_MODULE_MAX_PACKAGE_BYTES: int(1024 * 1024 * 1024),
  /** Most bytes a package may expand to (zip bomb guard). */
  STEPWISE_MODULE_MAX_EXTRACTED_BYTES: int(4 * 1024 * 1024 * 1024),
  /** A package fetched by URL must arrive within this time, redirects included. */
  STEPWISE_MODULE_FETCH_TIMEOUT_SECONDS: int(120),

  /**
   * Site export and import (docs/export-format.md): one job step stops after this many seconds
   * (well under the task Lambda's 900 s) or once its part object holds this many bytes.
   */
  STEPWISE_TRANSFER_STEP_SECONDS: z.pipe(
    z._default(z.string(), '600'),
    z.transform((value: string) => Number.parseFloat(value)),
  ),
  STEPWISE_TRANSFER_PART_BYTES: int(1024 * 1024 * 1024),

  /** Events and webhooks (docs/events.md). Multiplies every webhook retry wait (tests: 0.001). */
  STEPWISE_WEBHOOK_DELAY_SCALE: z.pipe(
    z._default(z.string(), '1'),
    z.transform((value: string) => Number.parseFloat(value)),
  ),
  /** A receiver must answer a delivery within this time, or the attempt is retried. */
  STEPWISE_WEBHOOK_TIMEOUT_SECONDS: int(10),
  /** How often the local deliverer polls the outbox and the due deliveries. */
  STEPWISE_DELIVERER_POLL_MS: int(1000),
  /** How often the local stack runs the notice sweep (docs/notices.md); 0: never (the tests run it by route). */
  STEPWISE_NOTICE_SWEEP_MS: int(60000),
  /** How often the local stack runs the cmi5 abandon sweep (docs/lrs.md); 0: never (the tests call its route). */
  STEPWISE_CMI5_ABANDON_SWEEP_MS: int(300000),
  /** EventBridge bus every event is put on (a deployed stack); unset: events are only logged. */
  STEPWISE_EVENT_BUS_NAME: z.optional(z.string()),
  /**
   * xAPI: the LRS endpoint (statements go to <endpoint>/statements) and its Basic credentials; unset: no statements.
   */
  STEPWISE_XAPI_ENDPOINT: optionalUrl,
  STEPWISE_XAPI_USERNAME: z.optional(z.string()),
  STEPWISE_XAPI_PASSWORD: z.optional(z.string()),
  /** Image work (decision 162): jobs at once per container, wait for a slot, deadlines per job. */
  STEPWISE_IMAGE_CONCURRENCY: int(2),
  STEPWISE_IMAGE_QUEUE_MS: int(5000),
  STEPWISE_IMAGE_DEADLINE_MS: int(10_000),
  STEPWISE_IMAGE_PROCESSING_DEADLINE_MS: int(60_000),
});

export type Config = z.infer<typeof ConfigSchema>;

let cached: Config | undefined;

/** The parsed configuration. Parsed on first use so `npm start` and tests can set env first. */
export function config(): Config {
  if (!cached) {
    const parsed = ConfigSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      throw new Error(`Invalid Stepwise configuration: ${problems.join('; ')}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** The site's public base URL (absolute links in payloads and mail). */
export function siteUrl(): string {
  return config().STEPWISE_SITE_URL;
}

/** Feature flags named in the spec (stage_status needs both). */
export function featureEnabled(name: string): boolean {
  return config().STEPWISE_FEATURE_FLAGS.includes(name);
}

/** Whether the handler and the AWS clients are traced (decision 184). */
export function tracingEnabled(): boolean {
  const { STEPWISE_TRACING, STEPWISE_RUNTIME } = config();
  return STEPWISE_TRACING === undefined ? STEPWISE_RUNTIME === 'aws' : STEPWISE_TRACING === 'true';
}

/** For tests that change the environment of the current process. */
export function reloadConfig(): Config {
  cached = undefined;
  return config();
}
