/**
 * The default avatar (decision 195): the base64 the bundles carry is the PNG in the repo, and the
 * Image object points every size at the path the pages group serves.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { DEFAULT_AVATAR_PNG_BASE64 } from '../../functions/pages/default-avatar-png.ts';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { acceptsGzip, respond } from '../../shared/http/respond.ts';
import { DEFAULT_AVATAR_PATH } from '../../shared/domain/media.ts';
import { authorSummary, defaultAvatarImage } from '../../shared/views/user-views.ts';

it('the bundled bytes are functions/pages/assets/default-avatar.png, a small square PNG', async () => {
  const file = readFileSync(new URL('../../functions/pages/assets/default-avatar.png', import.meta.url));
  expect(Buffer.from(DEFAULT_AVATAR_PNG_BASE64, 'base64').equals(file)).toBe(true);
  const meta = await sharp(file).metadata();
  expect(meta).toMatchObject({ format: 'png', width: 200, height: 200 });
  expect(file.length).toBeLessThan(4096);
});

it('the Image object: negative id (not -1), every size at original + ".<size>"', () => {
  const image = defaultAvatarImage('https://docs.example.com');
  expect(image.id).toBe(-32);
  expect(image.original).toBe(`https://docs.example.com${DEFAULT_AVATAR_PATH}`);
  for (const size of IMAGE_SIZES) expect(image[size.name]).toBe(`${image.original}.${size.name}`);
});

it('Accept-Encoding: gzip or * unless q=0', () => {
  expect(acceptsGzip('gzip, deflate, br')).toBe(true);
  expect(acceptsGzip('deflate, gzip;q=0.5')).toBe(true);
  expect(acceptsGzip('*')).toBe(true);
  expect(acceptsGzip('gzip;q=0')).toBe(false);
  expect(acceptsGzip('identity')).toBe(false);
  expect(acceptsGzip('xgzip')).toBe(false);
  expect(acceptsGzip(undefined)).toBe(false);
});

it('an author whose account is gone is a summary with the default avatar, not null', () => {
  const gone = authorSummary(undefined, 42, 'https://docs.example.com');
  expect(gone).toMatchObject({ userid: 42, username: 'Deleted user', reputation: 0, teams: [], privileges: [] });
  expect(gone.image).toEqual(defaultAvatarImage('https://docs.example.com'));
});

it('an answer larger than Lambda carries is a 500 that says what to do, plain or gzip', () => {
  // 7 MB of text that gzip cannot shrink below 6 MB: distinct random-looking strings.
  const big = Array.from({ length: 100_000 }, (_, i) => `${i}`.padEnd(8, 'x') + Math.random().toString(36).repeat(6));
  const plain = respond(200, big, { xml: false, pretty: false });
  expect(plain.statusCode).toBe(500);
  expect(JSON.parse(plain.body!).message).toMatch(/more than one response carries.*accept gzip/);
  const small = respond(200, big.slice(0, 1000), { xml: false, pretty: false, gzip: true });
  expect(small.statusCode).toBe(200);
  expect(small.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'accept-encoding' });
});
