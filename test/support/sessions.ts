/** Browser sessions over plain HTTP: a cookie jar of one visitor, the forms' CSRF tokens, form POSTs. */
import { expect } from 'vitest';
import { type ApiResponse, site } from './api.ts';

export class Visitor {
  readonly cookies = new Map<string, string>();

  cookieHeader(): Record<string, string> {
    const value = [...this.cookies].map(([name, cookie]) => `${name}=${cookie}`).join('; ');
    return value ? { cookie: value } : {};
  }

  private keep(response: ApiResponse): ApiResponse {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || attributes.some((attribute) => attribute.trim() === 'Max-Age=0')) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.keep(await site('GET', path, { headers: { ...this.cookieHeader(), ...headers } }));
  }

  /** An HTML form POST, as a browser sends it. */
  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.keep(
      await site('POST', path, {
        rawBody: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader(), ...headers },
      }),
    );
  }

  /** The CSRF token of the first form of a page this visitor opens. */
  async csrfOf(path: string): Promise<string> {
    const page = await this.get(path);
    expect(page.status).toBe(200);
    return csrfIn(page.text);
  }

  /** Signs in through the login form; the session cookie is then in the jar. */
  async signIn(email: string, password: string, returnTo = '/'): Promise<ApiResponse> {
    const csrf = await this.csrfOf(`/login?returnTo=${encodeURIComponent(returnTo)}`);
    const response = await this.post('/login', { email, password, returnTo, csrf });
    expect(response.status).toBe(303);
    return response;
  }
}

export function csrfIn(page: string): string {
  const match = /name="csrf" value="([0-9a-f]{64})"/.exec(page);
  expect(match, 'the page has a form with a CSRF token').not.toBeNull();
  return match![1]!;
}
