/**
 * How a media item is shown: the real service's shapes per type (wire-format §2.7-2.9) plus
 * `id`, `type`, `isReady` and `status`. Every URL is a presigned GET (shared/views/media-views.ts,
 * which also builds the Image object the guide views use).
 */
import { extensionOf } from '../domain/media.ts';
import type { MediaItemRecord } from '../db/entities/media-item.ts';
import { imageObject, mediaUrl as url } from './media-views.ts';

export async function mediaItemView(item: MediaItemRecord): Promise<Record<string, unknown>> {
  const ready = item.status === 'ready';
  const common = {
    id: item.itemid,
    type: item.type,
    isReady: ready,
    status: item.status,
    failure: item.failure,
    filename: item.filename,
    date: item.date,
  };
  switch (item.type) {
    case 'GuideImage':
      return {
        ...common,
        guid: item.guid,
        image: ready ? await imageObject(item) : null,
        srcid: item.source_itemid,
        width: item.width,
        height: item.height,
        ratio: 'VARIABLE',
        markup: item.markup ?? null,
        exif: { FileName: item.filename },
      };
    case 'GuideVideoObject':
      return {
        ...common,
        videoid: item.itemid,
        srcid: null,
        duration: null,
        width: item.width,
        height: item.height,
        image: null,
        meta: { id: item.itemid, file_size_in_bytes: item.size, state: ready ? 'finished' : item.status },
        // Uploaded as it is: no transcoding, so the one encoding is the original.
        encodings: ready ? [{ column: 'ORIGINAL', label: 'Original', mime: item.content_type, url: await url(item.original_key), always_generate: false }] : [],
      };
    case 'Document':
      return {
        ...common,
        documentid: item.itemid,
        guid: item.guid,
        size: item.size,
        pages: null,
        title: item.filename.replace(/\.[^.]*$/, ''),
        document_extension: extensionOf(item.filename),
        image: null,
        url: ready ? await url(item.original_key) : null,
        download_url: ready ? await url(item.original_key, item.filename) : null,
        display: null,
      };
    default:
      return { ...common, url: ready ? await url(item.original_key) : null };
  }
}
