/**
 * Turning what clients write into stored guide and step content: rendering wiki syntax
 * (always through shared/domain/wiki-syntax, whose HTML is sanitized), line ids, media, parts
 * and tools, and the checks that need the store (category, prerequisites, images).
 */
import { siteUrl } from '../../shared/config.ts';
import { ValidationError } from '../../shared/domain/errors.ts';
import type { GuideItemInput, StepMediaInput } from './guides.schemas.ts';
import { checkLines, MAX_INTRODUCTION_LINES, type LineInput } from '../../shared/domain/guide-rules.ts';
import { parseInline, renderInlineHtml, renderWiki } from '../../shared/domain/wiki-syntax/index.ts';
import { isAdmin, isWriterOf, type Caller } from '../../shared/domain/caller.ts';
import { nextIds } from '../../shared/db/counters.ts';
import { getGuides, type GuideItem } from '../../shared/db/entities/guide.ts';
import type { StepMedia } from '../../shared/db/entities/step.ts';
import type { StepLine } from '../../shared/domain/step-line.ts';
import { getWikiByTitle } from '../../shared/db/entities/wiki.ts';
import { getMediaItems, markMediaUsedBy } from '../../shared/db/entities/media-item.ts';
import type { MediaType } from '../../shared/domain/media.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';
import { imageGuidsOf, imageGuidsOfLines } from '../../shared/media/wiki-image-guids.ts';

/** Guids of the library images a text names: rendered HTML is stored, and `[image|id]` needs them. */
type ImageGuids = ReadonlyMap<number, string>;

export function renderBlock(raw: string, imageGuids?: ImageGuids): string {
  return raw ? renderWiki(raw, { siteUrl: siteUrl(), imageGuids }).html : '';
}

export function renderLineText(text: string, imageGuids?: ImageGuids): string {
  return renderInlineHtml(parseInline(text), { siteUrl: siteUrl(), imageGuids });
}

/** The guids the introduction and conclusion being written name (applyInput renders them). */
export const blockImageGuids = (...raws: Array<string | undefined>): Promise<ImageGuids> => imageGuidsOf(raws);

export function checkIntroduction(raw: string | undefined): void {
  if (raw !== undefined && raw.split('\n').length > MAX_INTRODUCTION_LINES) {
    throw ValidationError.field(
      'introduction',
      'too_long',
      `The introduction has at most ${MAX_INTRODUCTION_LINES} lines`,
    );
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
  const [fresh, imageGuids] = await Promise.all([
    nextIds('line', lines.filter((line) => !kept(line)).length),
    imageGuidsOfLines(lines.map((line) => line.text)),
  ]);
  return lines.map((line, index) => ({
    lineid: kept(line) ? line.lineid! : fresh.shift()!,
    bullet: bullets[index],
    level: line.level,
    text_raw: line.text,
    text_rendered: renderLineText(line.text, imageGuids),
  }));
}

/** Lines rendered without saving (POST /guides/steps/lines/preview). */
export async function previewLines(lines: LineInput[]) {
  const bullets = checkLines(lines);
  const imageGuids = await imageGuidsOfLines(lines.map((line) => line.text));
  return lines.map((line, index) => ({
    lineid: line.lineid ?? null,
    bullet: bullets[index],
    level: line.level,
    text_raw: line.text,
    text_rendered: renderLineText(line.text, imageGuids),
  }));
}

/** Step media as written (the step body's `media`, without null). */
export type MediaInput = NonNullable<StepMediaInput>;

/** Media as written (§2.6): a video is written as `object` and stored (and read) as `video`. */
export function storedMedia(media: MediaInput | null | undefined): StepMedia | null {
  if (!media) return null;
  if (media.type === 'image') return { type: 'image', data: media.data };
  if (media.type === 'embed') return { type: 'embed', data: media.data };
  return { type: 'video', data: media.data };
}

export function storedItems(items: GuideItemInput[] | undefined, kind: 'part' | 'tool'): GuideItem[] | undefined {
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
  if (!wiki)
    throw ValidationError.field(
      'category',
      'not_found',
      `No category titled "${category}"; create it with POST /wikis (namespace CATEGORY) first`,
    );
}

/** Prerequisites must be other existing guides the caller can read. */
export async function assertPrerequisites(
  caller: Caller,
  guideid: number | undefined,
  prerequisites: number[],
): Promise<void> {
  const unique = [...new Set(prerequisites)];
  if (unique.length !== prerequisites.length)
    throw ValidationError.field('prerequisites', 'duplicate', 'A prerequisite is listed twice');
  if (guideid !== undefined && unique.includes(guideid))
    throw ValidationError.field('prerequisites', 'self', 'A guide cannot be its own prerequisite');
  const found = new Map((await getGuides(unique)).map((guide) => [guide.guideid, guide]));
  const bad = unique.filter((id) => !found.has(id) || !canViewGuideNow(caller, found.get(id)!));
  if (bad.length > 0)
    throw ValidationError.field('prerequisites', 'not_found', `No guide you can read with guideid ${bad.join(', ')}`);
}

/** What each media type is called in messages, and where the caller finds its readiness. */
const MEDIA_NOUNS: Record<MediaType, string> = {
  GuideImage: 'image',
  GuideVideoObject: 'video',
  Document: 'document',
  GuideEmbedObject: 'embed',
};

/**
 * Media named on a write (the guide's `image` and `documents`, a step's `media.data`) must be
 * ready items of that type in the caller's library (any library for Admins): 422 naming
 * `field` otherwise. Ids already in place (`kept`: the step's current media, the guide's current
 * image or documents) pass unchecked, so a co-editor can send back media another editor chose.
 * One BatchGet for all of them.
 */
export async function assertUsableMedia(
  caller: Caller,
  field: string,
  type: MediaType,
  ids: number[],
  kept: number[] = [],
): Promise<void> {
  const keptIds = new Set(kept);
  const checked = [...new Set(ids.filter((id) => !keptIds.has(id)))];
  if (checked.length === 0) return;
  const noun = MEDIA_NOUNS[type];
  const items = new Map((await getMediaItems(checked)).map((item) => [item.itemid, item]));
  for (const id of checked) {
    const item = items.get(id);
    if (!item || item.type !== type || (!isWriterOf(caller, item) && !isAdmin(caller))) {
      throw ValidationError.field(field, 'not_found', `No ${noun} ${id} in your media library`);
    }
    if (item.status !== 'ready') {
      throw ValidationError.field(
        field,
        'not_ready',
        `The ${noun} ${id} is ${item.status}; attach it once GET /user/media/${type}/${id} says isReady`,
      );
    }
  }
}

/** The media type of written (or stored) step media: images, one video or one embed. */
export function stepMediaType(media: MediaInput | StepMedia | null | undefined): MediaType | undefined {
  if (!media) return undefined;
  if (media.type === 'image') return 'GuideImage';
  if (media.type === 'embed') return 'GuideEmbedObject';
  return 'GuideVideoObject';
}

/** The ids of written (or stored) step media. */
export const stepMediaIds = (media: MediaInput | StepMedia | null | undefined): number[] =>
  !media ? [] : media.type === 'image' ? media.data : [media.data];

/** Step media must be ready items of the caller; what the step shows already passes. */
export async function assertUsableStepMedia(
  caller: Caller,
  media: MediaInput | null | undefined,
  before: StepMedia | null = null,
): Promise<void> {
  const type = stepMediaType(media);
  if (!type) return;
  await assertUsableMedia(
    caller,
    'media',
    type,
    stepMediaIds(media),
    stepMediaType(before) === type ? stepMediaIds(before) : [],
  );
}

/**
 * Records that the guide shows these items, once the write that attached them has landed, so
 * GET /media/* answers the guide's readers (shared/db/entities/media-item.ts `used_by_guideids`).
 */
export async function recordMediaUse(guideid: number, itemids: number[]): Promise<void> {
  if (itemids.length > 0) await markMediaUsedBy(guideid, itemids);
}
