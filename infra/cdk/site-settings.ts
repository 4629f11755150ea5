/**
 * The settings of one deployment, read from CDK context (cdk.json `context` or `-c key=value`)
 * and validated here, in one place. Site settings carry the same names and defaults as
 * shared/config.ts, so a deployed stack behaves like `npm start` unless told otherwise.
 */
import type { Node } from 'constructs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as z from 'zod';

/** Every context key starts with this prefix: `-c stepwise:siteUrl=https://training.example.com`. */
export const CONTEXT_PREFIX = 'stepwise:';

/** `-c` values arrive as strings, cdk.json values as JSON: accept both. */
const list = (fallback: string[]) =>
  z
    .union([z.string(), z.array(z.string())])
    .default(fallback)
    .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((part) => part.trim()).filter(Boolean));

const flag = (fallback: boolean) =>
  z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .default(fallback)
    .transform((value) => value === true || value === 'true');

const integer = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const RETENTION_DAYS = new Set<number>(Object.values(RetentionDays).filter((value) => typeof value === 'number'));

const SiteSettingsSchema = z
  .strictObject({
    /** Names every stack (`<prefix>-Stateful`, `-Pipeline`, `-Api`): one account can host several sites. */
    stackPrefix: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,40}$/, 'letters, digits and dashes, starting with a letter')
      .default('Stepwise'),

    // --- Site settings: passed to every function as the STEPWISE_* variables of shared/config.ts.
    siteUrl: z.url().default('http://127.0.0.1:3000'),
    siteName: z.string().min(1).default('Stepwise'),
    /** GET /sites/info `siteid`: a site migrated from Dozuki keeps its number. */
    siteId: integer(1, 1, 2_147_483_647),
    /** GET /sites/info `description`: one line the apps' site picker shows. */
    siteDescription: z.string().max(500).default(''),
    publicRegistration: flag(false),
    /** Anonymous callers get 401 everywhere but login, registration, password reset, the docs and /health. */
    privateSite: flag(true),
    languages: list(['en']).refine((languages) => languages.length > 0, 'at least one language'),
    appIds: list([]),
    featureFlags: list([]),
    guideTypes: list(['how-to']),
    tokenTtlDays: integer(30, 1, 3650),
    resetTokenTtlMinutes: integer(60, 5, 7 * 24 * 60),
    loginMaxFailures: integer(10, 1, 1000),
    /** Higher than per account: many people may share one address (an office NAT). */
    loginMaxFailuresPerAddress: integer(100, 1, 100_000),
    loginWindowSeconds: integer(1800, 60, 86_400),
    /** `admins`: only break-glass Admins sign in with a password (docs/identity.md). */
    passwordLogin: z.enum(['everyone', 'admins']).default('everyone'),
    /** The identity provider (providerid, or `remote_login`) site info and the login page send people to. */
    ssoProvider: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'an identity provider id')
      .optional(),
    /**
     * The Secrets Manager secret (full ARN) holding the key that seals identity providers'
     * secrets; unset: the stateful stack generates one (decision 240, docs/operations.md).
     */
    secretsKeyArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/, 'a secret’s full ARN')
      .optional(),
    logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
    /** Sender of password-reset and invitation mail; the address or its domain must be verified in SES. */
    mailFrom: z.email().default('no-reply@example.com'),
    /** Module packages: largest zip accepted, most bytes it may expand to, fetch time limit. */
    moduleMaxPackageBytes: integer(1024 * 1024 * 1024, 1024, 10 * 1024 * 1024 * 1024),
    moduleMaxExtractedBytes: integer(4 * 1024 * 1024 * 1024, 1024, 40 * 1024 * 1024 * 1024),
    moduleFetchTimeoutSeconds: integer(120, 5, 840),
    /**
     * Hosts a module import by URL may fetch although they resolve to private addresses (an
     * intranet LMS). Empty by default: every private, loopback and metadata address is refused.
     */
    fetchAllowHosts: list([]),
    /**
     * The search backend (decision 292, docs/search.md): `embedded` (the index in the modules
     * bucket, no fixed cost) or `opensearch`, which also creates an Amazon OpenSearch Serverless
     * collection in the stateful stack that the search function and the indexer alone may use.
     */
    searchEngine: z.enum(['embedded', 'opensearch']).default('embedded'),

    // --- Deployment settings: shape the infrastructure, not the application.
    /** Browser origins allowed by API CORS and by the media bucket (presigned POST uploads). */
    corsOrigins: list(['*']).refine((origins) => origins.length > 0, 'at least one origin'),
    /** Default-stage throttling: steady requests per second and burst, for the whole API. */
    throttleRateLimit: integer(50, 1, 10_000),
    throttleBurstLimit: integer(100, 1, 5_000),
    logRetentionDays: integer(90, 1, 3653).refine((days) => RETENTION_DAYS.has(days), {
      message: `one of ${[...RETENTION_DAYS].filter((days) => days !== RetentionDays.INFINITE).join(', ')}`,
    }),
    /** Subscribed to the alarm topic when set (the address must confirm the subscription). */
    alarmEmail: z.email().optional(),
    /**
     * Use this existing table instead of the one the stateful stack created: the target of a
     * point-in-time restore (docs/operations.md, "Restore").
     */
    tableName: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name')
      .optional(),
    /**
     * The site's own host names on its CloudFront distribution (the host of siteUrl, usually), with
     * an ACM certificate for them in us-east-1. Without them the site answers at CloudFront's name.
     */
    siteDomainNames: list([]),
    siteCertificateArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/, 'an ACM certificate ARN in us-east-1')
      .optional(),
  })
  .refine((settings) => settings.siteDomainNames.length > 0 === (settings.siteCertificateArn !== undefined), {
    message: 'stepwise:siteDomainNames and stepwise:siteCertificateArn go together: set both or neither',
  });

export type SiteSettings = z.output<typeof SiteSettingsSchema>;
export type SiteSettingsInput = z.input<typeof SiteSettingsSchema>;

/** The keys a deployment may set, without the context prefix. */
export const SITE_SETTING_KEYS = Object.keys(SiteSettingsSchema.shape) as Array<keyof SiteSettings>;

/** Validates raw settings (keys without prefix); throws one error listing every problem. */
export function parseSiteSettings(raw: Record<string, unknown>): SiteSettings {
  const parsed = SiteSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown setting ${issue.keys.map((key) => CONTEXT_PREFIX + key).join(', ')} (known: ` +
          `${SITE_SETTING_KEYS.join(', ')})`
        : `${CONTEXT_PREFIX}${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid Stepwise deployment settings:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * Reads every `stepwise:*` context key. Unknown `stepwise:` keys are errors, so a typo in
 * cdk.json or on the command line does not silently deploy a default.
 */
export function readSiteSettings(node: Node): SiteSettings {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node.getAllContext())) {
    if (key.startsWith(CONTEXT_PREFIX) && value !== undefined && value !== '') {
      raw[key.slice(CONTEXT_PREFIX.length)] = value;
    }
  }
  return parseSiteSettings(raw);
}

/** The site settings as the environment variables shared/config.ts reads. */
export function siteEnvironment(settings: SiteSettings): Record<string, string> {
  return {
    STEPWISE_SITE_URL: settings.siteUrl,
    STEPWISE_SITE_NAME: settings.siteName,
    STEPWISE_SITE_ID: String(settings.siteId),
    STEPWISE_SITE_DESCRIPTION: settings.siteDescription,
    STEPWISE_PUBLIC_REGISTRATION: String(settings.publicRegistration),
    STEPWISE_PRIVATE_SITE: String(settings.privateSite),
    STEPWISE_LANGUAGES: settings.languages.join(','),
    STEPWISE_APP_IDS: settings.appIds.join(','),
    STEPWISE_FEATURE_FLAGS: settings.featureFlags.join(','),
    STEPWISE_GUIDE_TYPES: settings.guideTypes.join(','),
    STEPWISE_TOKEN_TTL_DAYS: String(settings.tokenTtlDays),
    STEPWISE_RESET_TOKEN_TTL_MINUTES: String(settings.resetTokenTtlMinutes),
    STEPWISE_LOGIN_MAX_FAILURES: String(settings.loginMaxFailures),
    STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS: String(settings.loginMaxFailuresPerAddress),
    STEPWISE_LOGIN_WINDOW_SECONDS: String(settings.loginWindowSeconds),
    STEPWISE_PASSWORD_LOGIN: settings.passwordLogin,
    ...(settings.ssoProvider ? { STEPWISE_SSO_PROVIDER: settings.ssoProvider } : {}),
    STEPWISE_MAIL_FROM: settings.mailFrom,
    STEPWISE_MODULE_MAX_PACKAGE_BYTES: String(settings.moduleMaxPackageBytes),
    STEPWISE_MODULE_MAX_EXTRACTED_BYTES: String(settings.moduleMaxExtractedBytes),
    STEPWISE_MODULE_FETCH_TIMEOUT_SECONDS: String(settings.moduleFetchTimeoutSeconds),
    STEPWISE_FETCH_ALLOW_HOSTS: settings.fetchAllowHosts.join(','),
    STEPWISE_SEARCH_ENGINE: settings.searchEngine,
    LOG_LEVEL: settings.logLevel,
  };
}
