/**
 * The content origin's side of a launch (decision 270): the URL of a package file with a
 * launch-scoped token, and the key it is sealed with.
 */
import { config } from '../config.ts';
import { contentPath, type ContentGrant } from '../domain/content-token.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';

/** How long a launch's token opens the package's files: a sitting, not a day. */
export const CONTENT_TOKEN_SECONDS = 4 * 3600;

/** The local stack's key (its content server and its functions share it); never a deployment's. */
export const DEVELOPMENT_KEY = 'stepwise-local-content-signing-key-not-for-deployments';

export function contentSigningKey(): string {
  const { STEPWISE_CONTENT_SIGNING_KEY, STEPWISE_RUNTIME } = config();
  if (STEPWISE_CONTENT_SIGNING_KEY) return STEPWISE_CONTENT_SIGNING_KEY;
  if (STEPWISE_RUNTIME === 'local') return DEVELOPMENT_KEY;
  throw new ServiceUnavailableError('The content origin is not set up (STEPWISE_CONTENT_SIGNING_KEY)');
}

export function contentOrigin(): string {
  const url = config().STEPWISE_CONTENT_URL;
  if (!url) throw new ServiceUnavailableError('The content origin is not set up (STEPWISE_CONTENT_URL)');
  return url.replace(/\/+$/, '');
}

/** The content-origin URL of a package file (path relative to the package top, maybe with a query). */
export function contentFileUrl(grant: ContentGrant, path: string): string {
  const cut = path.search(/[?#]/);
  const file = cut < 0 ? path : path.slice(0, cut);
  const rest = cut < 0 ? '' : path.slice(cut);
  return `${contentOrigin()}${contentPath(contentSigningKey(), grant, file)}${rest}`;
}
