/**
 * The content origin's side of a launch (decision 270): the URL of a package file with a
 * launch-scoped token, and the key it is sealed with. Where the key comes from (decision 346):
 * - STEPWISE_CONTENT_SIGNING_KEY itself (an operator's own hosting, the local stack);
 * - else STEPWISE_CONTENT_SIGNING_KEY_ARN: a Secrets Manager secret read once per container, at
 *   the first signing (CDK sets it on the signing functions only, and only those may read it);
 * - else, locally (npm start, tests), a fixed development key;
 * - else nothing: the player answers 503.
 */
import { config } from '../config.ts';
import { contentPath, type ContentGrant } from '../domain/content-token.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { secretValue } from './secret-values.ts';

/** How long a launch's token opens the package's files: a sitting, not a day. */
export const CONTENT_TOKEN_SECONDS = 4 * 3600;

/** The local stack's key (its content server and its functions share it); never a deployment's. */
export const DEVELOPMENT_KEY = 'stepwise-local-content-signing-key-not-for-deployments';

/** The key launch tokens and runtime capabilities are sealed with (32 characters or more). */
export async function contentSigningKey(): Promise<string> {
  const { STEPWISE_CONTENT_SIGNING_KEY, STEPWISE_CONTENT_SIGNING_KEY_ARN, STEPWISE_RUNTIME } = config();
  if (STEPWISE_CONTENT_SIGNING_KEY) return STEPWISE_CONTENT_SIGNING_KEY;
  if (STEPWISE_CONTENT_SIGNING_KEY_ARN)
    return secretValue(STEPWISE_CONTENT_SIGNING_KEY_ARN, { what: 'The content signing key', minLength: 32 });
  if (STEPWISE_RUNTIME === 'local') return DEVELOPMENT_KEY;
  throw new ServiceUnavailableError('The content origin is not set up (STEPWISE_CONTENT_SIGNING_KEY)');
}

export function contentOrigin(): string {
  const url = config().STEPWISE_CONTENT_URL;
  if (!url) throw new ServiceUnavailableError('The content origin is not set up (STEPWISE_CONTENT_URL)');
  return url.replace(/\/+$/, '');
}

/** The content-origin URL of a package file (path relative to the package top, maybe with a query). */
export async function contentFileUrl(grant: ContentGrant, path: string): Promise<string> {
  const cut = path.search(/[?#]/);
  const file = cut < 0 ? path : path.slice(0, cut);
  const rest = cut < 0 ? '' : path.slice(cut);
  const origin = contentOrigin();
  return `${origin}${contentPath(await contentSigningKey(), grant, file)}${rest}`;
}
