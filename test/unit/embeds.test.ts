import { describe, expect, it } from 'vitest';
import { embedForUrl } from '../../shared/domain/embeds.ts';

describe('embedForUrl', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://m.youtube.com/shorts/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['https://vimeo.com/76979871', 'https://player.vimeo.com/video/76979871'],
    ['https://player.vimeo.com/video/76979871', 'https://player.vimeo.com/video/76979871'],
  ])('makes the provider player of %s', (url, src) => {
    const embed = embedForUrl(url)!;
    expect(embed.type).toBe('video');
    expect(embed.html).toContain(`src="${src}"`);
    expect(embed.url).toBe(new URL(url).toString());
  });

  it('builds a player from the video id alone: an id with markup becomes a link', () => {
    const embed = embedForUrl('https://www.youtube.com/watch?v=abc"><img src=x onerror=alert(1)>')!;
    expect(embed.type).toBe('link');
    expect(embed.html).not.toMatch(/<img|<iframe/);
  });

  it('makes a link of any other http(s) URL, escaped, and nothing of other schemes or credentials', () => {
    const link = embedForUrl('http://example.com/manual?a=1&b=<b>')!;
    expect(link).toMatchObject({ type: 'link', width: 0, height: 0, provider_name: null });
    // The anchor carries `src` too: the Android app takes an embed's source from the first `src` (decision 195).
    expect(link.html).toBe(
      '<a href="http://example.com/manual?a=1&amp;b=%3Cb%3E" src="http://example.com/manual?a=1&amp;b=%3Cb%3E" ' +
        'rel="nofollow noopener noreferrer" target="_blank">http://example.com/manual?a=1&amp;b=%3Cb%3E</a>',
    );
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'ftp://example.com/x',
      'https://user:pw@example.com/',
      'no url',
      '',
    ]) {
      expect(embedForUrl(bad), bad).toBeUndefined();
    }
  });
});
