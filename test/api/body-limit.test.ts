/**
 * The local gateway caps request bodies at API Gateway's 10 MB quota (infra/local/gateway.ts):
 * an anonymous client cannot make it buffer an unbounded body. Raw sockets, so the test
 * controls exactly how many bytes are sent before the answer is read.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../../infra/local/gateway.ts';
import { ADMIN, api, apiUrl } from '../support/api.ts';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/** Writes `head` and then `body` (in pieces), and reads the whole answer until the server closes. */
function rawRequest(head: string, bodyPieces: Buffer[] = []): Promise<RawAnswer> {
  const url = new URL(apiUrl());
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    const answered = () => {
      const text = Buffer.concat(received).toString('utf8');
      const [headers = '', body = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]),
        headers: headers.toLowerCase(),
        body,
        closed: true,
      });
    };
    socket.on('data', (chunk) => received.push(chunk));
    // A reset after the answer arrived (the server closed on unread bytes) still counts as answered.
    socket.on('error', (error) => (received.length > 0 ? answered() : reject(error)));
    socket.on('close', answered);
    socket.write(head);
    for (const piece of bodyPieces) socket.write(piece);
  });
}

const tokenPath = () => `${new URL(apiUrl()).pathname}/user/token`;
const host = () => new URL(apiUrl()).host;

describe('request body cap (API Gateway payload quota)', () => {
  it('is the documented 10 MB', () => {
    expect(MAX_REQUEST_BODY_BYTES).toBe(10 * 1024 * 1024);
  });

  it('answers 413 to a Content-Length over the cap before the body is sent, and closes', async () => {
    const answer = await rawRequest(
      `POST ${tokenPath()} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ` +
        `${MAX_REQUEST_BODY_BYTES + 1}\r\n\r\n`,
    );
    expect(answer.status).toBe(413);
    expect(answer.headers).toContain('connection: close');
    expect(JSON.parse(answer.body).message).toMatch(/too large/i);
    expect(answer.closed).toBe(true);
  });

  it('answers 413 to a chunked body as soon as it passes the cap', async () => {
    // One byte past the cap, then nothing more: the answer must come without the body ending.
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    const pieces: Buffer[] = [];
    for (let sent = 0; sent <= MAX_REQUEST_BODY_BYTES; sent += piece.length) {
      const size = Math.min(piece.length, MAX_REQUEST_BODY_BYTES + 1 - sent);
      pieces.push(
        Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from('\r\n')]),
      );
    }
    const answer = await rawRequest(
      `POST ${tokenPath()} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: ` +
        `application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      pieces,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ message: expect.stringMatching(/too large/i) });
  });

  it('refuses an announced oversize body without asking for it (Expect: 100-continue)', async () => {
    const answer = await rawRequest(
      `POST ${tokenPath()} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nExpect: ` +
        `100-continue\r\nContent-Length: ${MAX_REQUEST_BODY_BYTES + 1}\r\n\r\n`,
    );
    expect(answer.status).toBe(413);
    expect(answer.headers).not.toContain('100 continue');
  });

  it('still serves a body at the cap and small requests after refusals', async () => {
    const padded = JSON.stringify({
      ...ADMIN,
      padding: 'x'.repeat(MAX_REQUEST_BODY_BYTES - JSON.stringify(ADMIN).length - 13),
    });
    expect(Buffer.byteLength(padded)).toBe(MAX_REQUEST_BODY_BYTES);
    const atCap = await api('POST', '/user/token', {
      rawBody: padded,
      headers: { 'content-type': 'application/json' },
    });
    expect(atCap.status).not.toBe(413);
    const login = await api('POST', '/user/token', { body: ADMIN });
    expect(login.status).toBe(201);
  });
});
