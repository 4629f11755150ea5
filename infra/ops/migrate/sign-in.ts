/**
 * Signs the migration in to the source: email and password through POST /user/token (the token
 * in `authToken`, then sent as `Authorization: api <token>`), or a token given as is. Either way
 * GET /user checks the token before the crawl starts, and a non-Admin is warned: the crawl sees
 * only what that account may see.
 */
import { SourceError } from './crawl.ts';
import type { HttpSourceClient } from './source-client.ts';

export type Credentials = { token: string } | { email: string; password: string };

export interface SignedIn {
  userid: number;
  privileges: string[];
}

export async function signIn(
  client: HttpSourceClient,
  credentials: Credentials,
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<SignedIn> {
  if ('email' in credentials) {
    const answer = await refusal(() =>
      client.post<{ authToken?: unknown }>('user/token', { email: credentials.email, password: credentials.password }),
    );
    if (typeof answer?.authToken !== 'string') throw new Error('the source answered the login without an authToken');
    client.setToken(answer.authToken);
  }
  const self = await refusal(() => client.get<{ userid?: unknown; privileges?: unknown }>('user'));
  const privileges = Array.isArray(self?.privileges) ? self.privileges.map(String) : [];
  if (!privileges.includes('Admin')) {
    warn('Warning: this account is not an Admin; the crawl will hold only what it may see.');
  }
  return { userid: Number(self?.userid), privileges };
}

/** A 401 or 403 said plainly; anything else as the source put it. */
async function refusal<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof SourceError && (error.status === 401 || error.status === 403)) {
      throw new Error(`the source refused the credentials (${error.status}: ${error.message})`);
    }
    throw error;
  }
}
