/**
 * The guids of the library images wiki text names (`[image|42]`): the renderer builds their
 * `/igi/<guid>.<size>` URLs from this map (it does no I/O itself; decision 210). One BatchGet
 * for every text given; an id that is not a ready image is left out, and the renderer leaves
 * its image out of the HTML.
 */
import { getMediaItems, readyImageGuids } from '../db/entities/media-item.ts';
import { isAdmin, isWriterOf, type Caller } from '../domain/caller.ts';
import { ValidationError } from '../domain/errors.ts';
import { parseInline, parseWiki, wikiImageIds, type DocNode } from '../domain/wiki-syntax/index.ts';

/** Guids by image id of the ready images the trees name. */
export async function imageGuidsIn(docs: DocNode[]): Promise<ReadonlyMap<number, string>> {
  return readyImageGuids(docs.flatMap((doc) => wikiImageIds(doc)));
}

/** Text without the image syntax is not parsed at all (most pages name no image). */
const namesAnImage = (raw: string | undefined): raw is string =>
  typeof raw === 'string' && /\[\s*image\s*\|/i.test(raw);

/** Guids of the images named by wiki texts (pages, introductions, category identifications). */
export function imageGuidsOf(raws: Array<string | undefined>): Promise<ReadonlyMap<number, string>> {
  return imageGuidsIn(raws.filter(namesAnImage).map((raw) => parseWiki(raw)));
}

/** Guids of the images named by single lines (step lines), parsed as the line renderer parses them. */
export function imageGuidsOfLines(texts: Array<string | undefined>): Promise<ReadonlyMap<number, string>> {
  return imageGuidsIn(texts.filter(namesAnImage).map((text) => ({ type: 'doc', content: parseInline(text) })));
}

/** The most images one preview shows (one BatchGet). */
const PREVIEW_IMAGES = 100;

/**
 * Guids of the images a preview of unsaved text may show (decision 332): ready images the caller
 * could place on a page (their own library's; any for Admins), as assertNamedImagesUsable lets a
 * save place them, the first 100 ids named. Others are left out of the map, so the renderer leaves
 * them out as it does on a page: a preview never reveals a guid its writer could not have used.
 */
export async function previewImageGuids(caller: Caller, raw: string): Promise<ReadonlyMap<number, string>> {
  if (!namesAnImage(raw)) return new Map();
  const ids = [...new Set(wikiImageIds(parseWiki(raw)))].slice(0, PREVIEW_IMAGES);
  if (ids.length === 0) return new Map();
  const items = await getMediaItems(ids);
  return new Map(
    items
      .filter(
        (item) =>
          item.type === 'GuideImage' && item.status === 'ready' && (isWriterOf(caller, item) || isAdmin(caller)),
      )
      .map((item) => [item.itemid, item.guid]),
  );
}

const idsNamed = (texts: Array<string | undefined>, lines: boolean): number[] =>
  texts
    .filter(namesAnImage)
    .flatMap((text) => wikiImageIds(lines ? { type: 'doc', content: parseInline(text) } : parseWiki(text)));

/**
 * A text being written may name only ready images of the writer's media library (any library
 * for Admins), as guide media must be: the rendered URL carries the image's guid, which is the
 * capability to load it (decision 197), so naming an id must not reveal another user's image.
 * Ids the text named before (`before`: the stored version) pass unchecked, so a co-editor can
 * keep what another editor placed. 422 naming `field` otherwise.
 */
export async function assertNamedImagesUsable(
  caller: Caller,
  field: string,
  written: Array<string | undefined>,
  before: Array<string | undefined> = [],
  options: { lines?: boolean } = {},
): Promise<void> {
  const kept = new Set(idsNamed(before, options.lines ?? false));
  const checked = [...new Set(idsNamed(written, options.lines ?? false))].filter((id) => !kept.has(id));
  if (checked.length === 0) return;
  const items = new Map((await getMediaItems(checked)).map((item) => [item.itemid, item]));
  for (const id of checked) {
    const item = items.get(id);
    if (item?.type !== 'GuideImage' || (!isWriterOf(caller, item) && !isAdmin(caller)))
      throw ValidationError.field(field, 'not_found', `[image|${id}] names no image in your media library`);
    if (item.status !== 'ready')
      throw ValidationError.field(
        field,
        'not_ready',
        `The image ${id} is ${item.status}; name it once GET /user/media/GuideImage/${id} says isReady`,
      );
  }
}
