/**
 * Turning what clients write into stored guide and step content: rendering wiki syntax
 * (always through shared/domain/wiki-syntax, whose HTML is sanitized), line ids, media, parts
 * and tools, and the checks that need the store (category, prerequisites, images).
 */
import { config, siteUrl } from '../../shared/config.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import { checkLines, MAX_INTRODUCTION_LINES, type LineInput } from '../../shared/domain/guide-rules.ts';
import { parseInline, renderInlineHtml, renderWiki } from '../../shared/domain/wiki-syntax/index.ts';
import { isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { nextIds } from '../../shared/db/counters.ts';
import { getGuides, type GuideItem, type StepLine, type StepMedia } from '../../shared/db/entities/guide.ts';
import { getWikiByTitle } from '../../shared/db/entities/wiki.ts';
import { getMediaItems } from '../../shared/db/entities/media-item.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';


export function renderBlock(raw: string): string {
  return raw ? renderWiki(raw, { siteUrl: siteUrl() }).html : '';
}

export function renderLineText(text: string): string {
  return renderInlineHtml(parseInline(text), { siteUrl: siteUrl() });
}

export function checkIntroduction(raw: string | undefined): void {
  if (raw !== undefined && raw.split('\n').length > MAX_INTRODUCTION_LINES) {
    throw ValidationError.field('introduction', 'too_long', `The introduction has at most ${MAX_INTRODUCTION_LINES} lines`);
  }
}

/**
 * Stored lines from written ones. A line that names one of the step's existing lineids keeps
 * it; every other line gets a new lineid.
 */
export async function buildLines(lines: LineInput[], existing: StepLine[] = []): Promise<StepLine[]> {
  const bullets = checkLines(lines);
  const known = new Set(existing.map((line) => line.lineid));
  const kept = (line: LineInput) => line.lineid !== undefined && known.has(line.lineid);
  const fresh = await nextIds('line', lines.filter((line) => !kept(line)).length);
  return lines.map((line, index) => ({
    lineid: kept(line) ? line.lineid! : fresh.shift()!,
    bullet: bullets[index],
    level: line.level,
    text_raw: line.text,
    text_rendered: renderLineText(line.text),
  }));
}

/** Lines rendered without saving (POST /guides/steps/lines/preview). */
export function previewLines(lines: LineInput[]) {
  const bullets = checkLines(lines);
  return lines.map((line, index) => ({ lineid: line.lineid ?? null, bullet: bullets[index], level: line.level, text_raw: line.text, text_rendered: renderLineText(line.text) }));
}

export type MediaInput = { type: 'image'; data: number[] } | { type: 'object' | 'video'; data: number } | { type: 'embed'; data: number };

/** Media as written (§2.6): a video is written as `object` and stored (and read) as `video`. */
export function storedMedia(media: MediaInput | null | undefined): StepMedia | null {
  if (!media) return null;
  if (media.type === 'image') return { type: 'image', data: media.data };
  if (media.type === 'embed') return { type: 'embed', data: media.data };
  return { type: 'video', data: media.data };
}

export interface ItemInput {
  text: string;
  notes?: string | null;
  type?: string;
  quantity?: number;
  url?: string | null;
  thumbnail?: string | null;
  isoptional?: boolean;
  featured?: boolean;
}

export function storedItems(items: ItemInput[] | undefined, kind: 'part' | 'tool'): GuideItem[] | undefined {
  return items?.map((item) => ({
    text: item.text,
    notes: item.notes ?? null,
    type: item.type ?? kind,
    quantity: item.quantity ?? 1,
    url: item.url ?? null,
    thumbnail: item.thumbnail ?? null,
    isoptional: item.isoptional ?? false,
    featured: item.featured ?? false,
  }));
}

/** A guide's category must be an existing CATEGORY wiki (exact title). */
export async function assertCategoryExists(category: string): Promise<void> {
  const wiki = await getWikiByTitle('CATEGORY', category);
  if (!wiki) throw ValidationError.field('category', 'not_found', `No category titled "${category}"; create it with POST /wikis (namespace CATEGORY) first`);
}

/** Prerequisites must be other existing guides the caller can read. */
export async function assertPrerequisites(caller: Caller, guideid: number | undefined, prerequisites: number[]): Promise<void> {
  const unique = [...new Set(prerequisites)];
  if (unique.length !== prerequisites.length) throw ValidationError.field('prerequisites', 'duplicate', 'A prerequisite is listed twice');
  if (guideid !== undefined && unique.includes(guideid)) throw ValidationError.field('prerequisites', 'self', 'A guide cannot be its own prerequisite');
  const found = new Map((await getGuides(unique)).map((guide) => [guide.guideid, guide]));
  const bad = unique.filter((id) => !found.has(id) || !canViewGuideNow(caller, found.get(id)!));
  if (bad.length > 0) throw ValidationError.field('prerequisites', 'not_found', `No guide you can read with guideid ${bad.join(', ')}`);
}

/**
 * Images named on a write (the guide's `image`, a step's `media.data`) must be ready GuideImages
 * of the caller's library (any library for Admins): 422 naming `field` otherwise. Ids already
 * in place (`kept`: the step's current images, the guide's current image) pass unchecked, so a
 * co-editor can send back media another editor chose. One BatchGet for all of them.
 */
export async function assertUsableImages(caller: Caller, field: string, ids: number[], kept: number[] = []): Promise<void> {
  const keptIds = new Set(kept);
  const checked = [...new Set(ids.filter((id) => !keptIds.has(id)))];
  if (checked.length === 0) return;
  const items = new Map((await getMediaItems(checked)).map((item) => [item.itemid, item]));
  for (const id of checked) {
    const item = items.get(id);
    if (!item || item.type !== 'GuideImage' || (item.userid !== caller.userid && !isAdmin(caller))) {
      throw ValidationError.field(field, 'not_found', `No image ${id} in your media library (upload it with POST /user/media/uploads)`);
    }
    if (item.status !== 'ready') {
      throw ValidationError.field(field, 'not_ready', `Image ${id} is ${item.status}; attach it once GET /user/media/GuideImage/${id} says isReady`);
    }
  }
}

/** The image ids of written step media (none for video and embed media). */
export const mediaImageIds = (media: MediaInput | StepMedia | null | undefined): number[] => (media?.type === 'image' ? media.data : []);
