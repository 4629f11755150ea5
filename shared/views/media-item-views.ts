/**
 * How a media item is shown: the real service's shapes per type (wire-format §2.7-2.9, built in
 * shared/views/media-views.ts, which the guide views share) plus `id`, `type`, `isReady` and
 * `status`. Every URL is a presigned GET.
 */
import type { MediaItemRecord } from '../db/entities/media-item.ts';
import { documentObject, embedObject, imageObject, mediaUrl as url, userImageItem, videoObject } from './media-views.ts';

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
      return { ...common, ...(await userImageItem(item)), image: ready ? await imageObject(item) : null };
    case 'GuideVideoObject':
      return { ...(await videoObject(item)), ...common };
    case 'Document':
      return { ...(await documentObject(item)), ...common };
    case 'GuideEmbedObject':
      return { ...embedObject(item), ...common };
    default:
      return { ...common, url: ready ? await url(item.original_key) : null };
  }
}
