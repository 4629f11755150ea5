/**
 * Embeds of step media (`{type: "embed", data: {html, …}}`, docs/wire-fidelity.md §2.6): made from a URL,
 * without fetching anything. A YouTube or Vimeo URL becomes that provider's player, built here
 * from the video id alone; any other http(s) URL becomes a plain link. The html therefore never
 * carries markup a user wrote.
 */
import { escapeHtml } from './wiki-syntax/escape.ts';

export interface EmbedDetails {
  url: string;
  /** oEmbed type: `video` for a provider's player, `link` otherwise. */
  type: 'video' | 'link';
  provider_name: string | null;
  title: string | null;
  html: string;
  width: number;
  height: number;
}

const PLAYER_WIDTH = 640;
const PLAYER_HEIGHT = 360;
const VIDEO_ID = /^[A-Za-z0-9_-]{6,20}$/;

function youtubeId(url: URL): string | undefined {
  const host = url.hostname.replace(/^www\.|^m\./, '');
  if (host === 'youtu.be') return url.pathname.split('/')[1];
  if (host !== 'youtube.com' && host !== 'youtube-nocookie.com') return undefined;
  if (url.pathname === '/watch') return url.searchParams.get('v') ?? undefined;
  const match = /^\/(?:embed|shorts|live)\/([^/]+)/.exec(url.pathname);
  return match?.[1];
}

function vimeoId(url: URL): string | undefined {
  const host = url.hostname.replace(/^www\./, '');
  if (host !== 'vimeo.com' && host !== 'player.vimeo.com') return undefined;
  const match = /^\/(?:video\/)?(\d{1,12})(?:\/|$)/.exec(url.pathname);
  return match?.[1];
}

function player(src: string, provider: string, url: string): EmbedDetails {
  return {
    url,
    type: 'video',
    provider_name: provider,
    title: null,
    html:
      `<iframe src="${escapeHtml(src)}" width="${PLAYER_WIDTH}" height="${PLAYER_HEIGHT}" frameborder="0" ` +
      `allow="fullscreen; picture-in-picture" allowfullscreen></iframe>`,
    width: PLAYER_WIDTH,
    height: PLAYER_HEIGHT,
  };
}

/** The embed of a URL, or undefined when it is not an absolute http(s) URL. */
export function embedForUrl(raw: string): EmbedDetails | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  const href = url.toString();
  const youtube = youtubeId(url);
  if (youtube && VIDEO_ID.test(youtube))
    return player(`https://www.youtube-nocookie.com/embed/${youtube}`, 'YouTube', href);
  const vimeo = vimeoId(url);
  if (vimeo) return player(`https://player.vimeo.com/video/${vimeo}`, 'Vimeo', href);
  return {
    url: href,
    type: 'link',
    provider_name: null,
    title: null,
    html: `<a href="${escapeHtml(href)}" rel="nofollow noopener noreferrer" target="_blank">${escapeHtml(href)}</a>`,
    width: 0,
    height: 0,
  };
}
