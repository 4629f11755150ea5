/**
 * The wire shapes of guides (reference/wire-format.md §2.4–2.7): the summary used in lists and
 * as prerequisites, the full guide of GET /guides/{guideid}, and steps with their lines and
 * media. Pure: the caller loads the records.
 */
import type { GuideRecord, StepMedia, StepRecord } from '../db/entities/guide.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { ImageObject, ViewMedia, ViewMediaIds } from '../domain/media.ts';
import { flagView, timeRequiredText } from '../domain/guide-rules.ts';
import { userSummary } from './user-views.ts';
import { urlSlug } from '../domain/text.ts';

export function guideUrl(siteUrl: string, guide: Pick<GuideRecord, 'guideid' | 'title'>): string {
  return `${siteUrl}/Guide/${urlSlug(guide.title)}/${guide.guideid}`;
}

/** The media objects a view shows, by id (loaded in one BatchGet by the caller). */
export type { ViewMedia } from '../domain/media.ts';

/** An image as shown: its Image object, or `{id}` alone while it cannot be shown (deleted, not ready). */
export const imageRef = (id: number, media: ViewMedia): ImageObject => media.images.get(id) ?? { id };

/** The guide's `image`: an Image object, or null when it has none. */
export const guideImage = (guide: Pick<GuideRecord, 'image'>, media: ViewMedia): ImageObject | null =>
  guide.image === null || guide.image === undefined ? null : imageRef(guide.image, media);

/**
 * Every media id guide views show, by kind: the guides' images and their steps' images, videos
 * and embeds (the full guide adds its own documents).
 */
export function mediaIdsOf(guides: Array<Pick<GuideRecord, 'image'>>, steps: Array<Pick<StepRecord, 'media'>> = []): ViewMediaIds {
  const ids: ViewMediaIds = { images: [], videos: [], documents: [], embeds: [] };
  for (const guide of guides) if (typeof guide.image === 'number') ids.images.push(guide.image);
  for (const step of steps) {
    if (step.media?.type === 'image') ids.images.push(...step.media.data);
    if (step.media?.type === 'video') ids.videos.push(step.media.data);
    if (step.media?.type === 'embed') ids.embeds.push(step.media.data);
  }
  return ids;
}

export function guideSummary(guide: GuideRecord, author: UserRecord | undefined, siteUrl: string, media: ViewMedia) {
  return {
    dataType: 'guide' as const,
    guideid: guide.guideid,
    locale: guide.langid,
    revisionid: guide.revisionid,
    modified_date: guide.modified_date,
    prereq_modified_date: 0,
    url: guideUrl(siteUrl, guide),
    type: guide.type,
    category: guide.category,
    subject: guide.subject,
    title: guide.title,
    summary: guide.summary,
    difficulty: guide.difficulty,
    time_required: timeRequiredText(guide.time_required_min, guide.time_required_max),
    time_required_min: guide.time_required_min,
    time_required_max: guide.time_required_max,
    public: guide.public,
    userid: guide.userid,
    username: author?.username ?? null,
    flags: guide.flags,
    image: guideImage(guide, media),
  };
}

export type GuideSummary = ReturnType<typeof guideSummary>;

/**
 * Read form of step media (§2.6): image ids become Image objects, a video (written as `object`)
 * is read back as `video` with the Video object, an embed with its html. Media that cannot be
 * shown (deleted, not ready) reads as its id alone.
 */
function mediaView(media: StepMedia | null, shown: ViewMedia) {
  if (!media) return { type: 'image', data: [] };
  if (media.type === 'image') return { type: 'image', data: media.data.map((id) => imageRef(id, shown)) };
  if (media.type === 'video') return { type: 'video', data: shown.videos.get(media.data) ?? { videoid: media.data } };
  return { type: 'embed', data: shown.embeds.get(media.data) ?? { embedid: media.data } };
}

export function stepView(step: StepRecord, orderby: number, media: ViewMedia) {
  return {
    guideid: step.guideid,
    stepid: step.stepid,
    orderby,
    revisionid: step.revisionid,
    title: step.title,
    lines: step.lines.map((line) => ({ lineid: line.lineid, bullet: line.bullet, level: line.level, text_raw: line.text_raw, text_rendered: line.text_rendered })),
    media: mediaView(step.media, media),
    comments: [] as unknown[],
    comment_count: step.comment_count ?? 0,
  };
}

export type StepView = ReturnType<typeof stepView>;

export interface FullGuideParts {
  guide: GuideRecord;
  author: UserRecord | undefined;
  /** Prerequisite steps (unless excluded) followed by the guide's own, already in view form. */
  steps: StepView[];
  prerequisites: GuideSummary[];
  favorited: boolean;
  completed: boolean;
  canEdit: boolean;
  siteUrl: string;
  media: ViewMedia;
}

export function fullGuideView(parts: FullGuideParts) {
  const { guide, siteUrl } = parts;
  return {
    guideid: guide.guideid,
    langid: guide.langid,
    locale: guide.langid,
    revisionid: guide.revisionid,
    type: guide.type,
    category: guide.category,
    subject: guide.subject,
    title: guide.title,
    url: guideUrl(siteUrl, guide),
    summary: guide.summary,
    introduction_raw: guide.introduction_raw,
    introduction_rendered: guide.introduction_rendered,
    conclusion_raw: guide.conclusion_raw,
    conclusion_rendered: guide.conclusion_rendered,
    difficulty: guide.difficulty,
    time_required: timeRequiredText(guide.time_required_min, guide.time_required_max),
    time_required_min: guide.time_required_min,
    time_required_max: guide.time_required_max,
    public: guide.public,
    can_edit: parts.canEdit,
    favorited: parts.favorited,
    completed: parts.completed,
    patrol_threshold: 0,
    author: parts.author ? userSummary(parts.author, siteUrl) : null,
    image: guideImage(guide, parts.media),
    flags: guide.flags.map(flagView),
    parts: guide.parts,
    tools: guide.tools,
    documents: guide.documents.map((documentid) => parts.media.documents.get(documentid) ?? { documentid }),
    prerequisites: parts.prerequisites,
    steps: parts.steps,
    comments: [] as unknown[],
    created_date: guide.created_date,
    published_date: guide.published_date,
    modified_date: guide.modified_date,
    prereq_modified_date: parts.prerequisites.reduce((latest, prerequisite) => Math.max(latest, prerequisite.modified_date), 0),
    featured_documentid: null,
    intro_video_url: null,
    intro_video: null,
  };
}

export type FullGuideView = ReturnType<typeof fullGuideView>;
