/**
 * The editor's calls to the site's own API (/api/2.0), the routes and checks every client uses.
 * The session's token comes from GET /api/2.0/user, the one API route that reads the session
 * cookie (docs/sessions.md); every write then carries `Authorization: api <token>`, a header no
 * other site can make a browser send, so the API's writes need no CSRF token (decision 295).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(ApiError.describe(status, body));
  }

  static describe(status: number, body: unknown): string {
    const message = (body as { message?: unknown } | null)?.message;
    return typeof message === 'string' && message ? `${message} (${status})` : `The request failed (${status})`;
  }
}

let token: Promise<string> | undefined;

async function sessionToken(): Promise<string> {
  token ??= (async () => {
    const response = await fetch('/api/2.0/user', {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    const body = (await response.json().catch(() => null)) as { authToken?: unknown } | null;
    if (!response.ok || typeof body?.authToken !== 'string') throw new ApiError(response.status, body);
    return body.authToken;
  })();
  return token;
}

/** One API call: the parsed JSON answer, or an ApiError with the status and the answer's body. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `api ${await sessionToken()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api/2.0${path}`, {
    method,
    headers,
    credentials: 'omit',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}

export interface PresignedUpload {
  id: number;
  type: string;
  upload: { url: string; fields: Record<string, string>; expires: number; max_bytes: number };
}

/**
 * Posts a file straight to storage with the API's presigned POST form, reporting progress
 * (0..1). XMLHttpRequest, as fetch reports no upload progress.
 */
export function postToStorage(target: PresignedUpload['upload'], file: File, progress: (done: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
    form.append('file', file);
    const request = new XMLHttpRequest();
    request.open('POST', target.url);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) progress(event.loaded / event.total);
    });
    request.addEventListener('load', () =>
      request.status >= 200 && request.status < 300
        ? resolve()
        : reject(new Error(`Storage refused the file (${request.status})`)),
    );
    request.addEventListener('error', () => reject(new Error('The upload did not reach storage')));
    request.send(form);
  });
}
