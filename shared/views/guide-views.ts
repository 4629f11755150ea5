/**
 * The wire shapes of guides (docs/wire-fidelity.md §2.4–2.7): the summary used in lists and
 * as prerequisites, the full guide of GET /guides/{guideid}, and steps with their lines and
 * media. Pure: the caller loads the records.
 */
import * as z from 'zod/mini';
import type { GuideRecord } from '../db/entities/guide.ts';
import type { StepMedia, StepRecord } from '../db/entities/step.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { ViewMediaIds } from '../domain/media.ts';
import { flagView, timeRequiredText } from '../domain/guide-rules.ts';
import { stepLineItemSchema } from '../domain/step-line.ts';
import { authorSummary } from './user-views.ts';
import { imageSchema, userSummarySchema, type ImageView } from './common-schemas.ts';
import { documentSchema, embedSchema, videoSchema, type ViewMedia } from './media-views.ts';
import { urlSlug } from '../domain/text.ts';
import { parseWiki } from '../domain/wiki-syntax/index.ts';

/**
 * Comments inline in a guide or step (built by shared/views/comment-views.ts, whose schema is
 * another area's): checked here only as far as guide views rely on them.
 */
const inlineCommentsSchema = z.array(z.looseObject({ commentid: z.int() }));

/** A guide as lists and prerequisites show it (§2.5). */
export const guideSummarySchema = z.object({
  dataType: z.literal('guide'),
  guideid: z.int(),
  locale: z.string(),
  revisionid: z.int(),
  modified_date: z.int(),
  prereq_modified_date: z.int(),
  url: z.string(),
  type: z.string(),
  category: z.string(),
  subject: z.string(),
  title: z.string(),
  summary: z.string(),
  difficulty: z.nullable(z.string()),
  time_required: z.string(),
  time_required_min: z.int(),
  time_required_max: z.int(),
  public: z.boolean(),
  userid: z.int(),
  username: z.nullable(z.string()),
  flags: z.array(z.string()),
  image: z.nullable(imageSchema),
  /** The guide's current revision (the same as `revisionid`, under the real service's second name). */
  guide_revisionid: z.int(),
  /** Stepwise has no archived state (a deleted guide leaves every list), so never true. */
  isArchived: z.boolean(),
  /** The guide's tags, alphabetical (kept on the guide item by the tag routes, decision 283). */
  tags: z.array(z.string()),
  /** The quiz attached to the guide (POST /quizzes/attach/guide) at its attached revision, or null. */
  attachedQuiz: z.nullable(z.object({ quizid: z.int(), quiz_revisionid: z.int() })),
  /** The periodic-review schedule the guide is in (docs/periodic-review.md), or null. */
  periodicReviewSchedule: z.nullable(z.object({ prsid: z.int(), prdid: z.int(), name: z.string() })),
});

/** A step line as read (shared/domain/step-line.ts); a previewed line's lineid is null. */
export const stepLineSchema = z.extend(stepLineItemSchema, { lineid: z.nullable(z.int()) });

/** Step media as read (§2.6); media that cannot be shown (deleted, not ready) reads as its id alone. */
export const stepMediaSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('image'), data: z.array(imageSchema) }),
  z.object({ type: z.literal('video'), data: z.union([videoSchema, z.object({ videoid: z.int() })]) }),
  z.object({ type: z.literal('embed'), data: z.union([embedSchema, z.object({ embedid: z.int() })]) }),
]);

/** A step (§2.6): PATCH /guides/{guideid}/steps/{stepid} answers it; the full guide lists them. */
export const stepSchema = z.object({
  guideid: z.int(),
  stepid: z.int(),
  orderby: z.int(),
  revisionid: z.int(),
  title: z.string(),
  lines: z.array(stepLineSchema),
  media: stepMediaSchema,
  comments: inlineCommentsSchema,
  comment_count: z.int(),
  /** The `standard` URL of the step's first image; `""` when its media is not a shown image. */
  imageURL: z.string(),
  /** Steps carry no time estimate of their own (the guide's is `time_required`): null. */
  time_estimate: z.null(),
});

/** The answer of POST /guides/steps/lines/preview: the lines as they would be stored. */
export const linePreviewSchema = z.object({ lines: z.array(stepLineSchema) });

const guideItemSchema = z.object({
  text: z.string(),
  notes: z.nullable(z.string()),
  type: z.string(),
  quantity: z.number(),
  url: z.nullable(z.string()),
  thumbnail: z.nullable(z.string()),
  isoptional: z.boolean(),
  featured: z.boolean(),
});

/** The full guide of GET /guides/{guideid} (§2.4), also the answer of every guide write. */
export const guideSchema = z.object({
  guideid: z.int(),
  langid: z.string(),
  locale: z.string(),
  revisionid: z.int(),
  type: z.string(),
  category: z.string(),
  subject: z.string(),
  title: z.string(),
  url: z.string(),
  summary: z.string(),
  introduction_raw: z.string(),
  introduction_rendered: z.string(),
  conclusion_raw: z.string(),
  conclusion_rendered: z.string(),
  difficulty: z.nullable(z.string()),
  time_required: z.string(),
  time_required_min: z.int(),
  time_required_max: z.int(),
  public: z.boolean(),
  can_edit: z.boolean(),
  favorited: z.boolean(),
  completed: z.boolean(),
  patrol_threshold: z.int(),
  /** Never null: Android's parseGuide reads `author` as an object (decision 195). */
  author: userSummarySchema,
  image: z.nullable(imageSchema),
  flags: z.array(z.object({ flagid: z.string(), title: z.string(), text: z.string() })),
  parts: z.array(guideItemSchema),
  tools: z.array(guideItemSchema),
  documents: z.array(z.union([documentSchema, z.object({ documentid: z.int() })])),
  prerequisites: z.array(guideSummarySchema),
  steps: z.array(stepSchema),
  comments: inlineCommentsSchema,
  created_date: z.int(),
  published_date: z.nullable(z.int()),
  modified_date: z.int(),
  prereq_modified_date: z.int(),
  featured_documentid: z.null(),
  /** No featured-document feature: null, as the real service answers a guide without one. */
  featured_document_embed_url: z.null(),
  intro_video_url: z.null(),
  intro_video: z.null(),
  /** The guide's current revision (the same as `revisionid`). */
  guide_revisionid: z.int(),
  /**
   * The introduction's structured form: its wiki-syntax tree, as a wiki's `contents_json` (decision
   * 313); null for a guide without an introduction.
   */
  introduction_json: z.nullable(z.object({ type: z.string() })),
  /** Whether the caller may start a work-log entry on this guide (POST /work_log). */
  work_log_enabled: z.boolean(),
  /** Where the caller's entries on this guide are listed (GET /work_log?guideid=…), when enabled. */
  work_log_url: z.nullable(z.string()),
});

export type GuideSummary = z.output<typeof guideSummarySchema>;
export type StepView = z.output<typeof stepSchema>;
export type FullGuideView = z.output<typeof guideSchema>;

export function guideUrl(siteUrl: string, guide: Pick<GuideRecord, 'guideid' | 'title'>): string {
  return `${siteUrl}/Guide/${urlSlug(guide.title)}/${guide.guideid}`;
}

/** The media objects a view shows, by id (loaded in one BatchGet by the caller). */
export type { ViewMedia } from './media-views.ts';

/** An image as shown: its Image object, or `{id}` alone while it cannot be shown (deleted, not ready). */
export const imageRef = (id: number, media: ViewMedia): ImageView => media.images.get(id) ?? { id };

/** The guide's `image`: an Image object, or null when it has none. */
export const guideImage = (guide: Pick<GuideRecord, 'image'>, media: ViewMedia): ImageView | null =>
  guide.image === null || guide.image === undefined ? null : imageRef(guide.image, media);

/**
 * Every media id guide views show, by kind: the guides' images and their steps' images, videos
 * and embeds (the full guide adds its own documents).
 */
export function mediaIdsOf(
  guides: Array<Pick<GuideRecord, 'image'>>,
  steps: Array<Pick<StepRecord, 'media'>> = [],
): ViewMediaIds {
  const ids: ViewMediaIds = { images: [], videos: [], documents: [], embeds: [] };
  for (const guide of guides) if (typeof guide.image === 'number') ids.images.push(guide.image);
  for (const step of steps) {
    if (step.media?.type === 'image') ids.images.push(...step.media.data);
    if (step.media?.type === 'video') ids.videos.push(step.media.data);
    if (step.media?.type === 'embed') ids.embeds.push(step.media.data);
  }
  return ids;
}

/** What a summary shows from other features, read in batches by the caller (null: none). */
export interface SummaryExtras {
  periodicReviewSchedule: GuideSummary['periodicReviewSchedule'];
}

export function guideSummary(
  guide: GuideRecord,
  author: UserRecord | undefined,
  siteUrl: string,
  media: ViewMedia,
  extras: SummaryExtras,
): GuideSummary {
  return {
    dataType: 'guide',
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
    guide_revisionid: guide.revisionid,
    isArchived: false,
    tags: [...(guide.tags ?? [])].sort(),
    attachedQuiz: guide.attached_quiz ?? null,
    periodicReviewSchedule: extras.periodicReviewSchedule,
  };
}

/**
 * Read form of step media (§2.6): image ids become Image objects, a video (written as `object`)
 * is read back as `video` with the Video object, an embed with its html. Media that cannot be
 * shown (deleted, not ready) reads as its id alone.
 */
function mediaView(media: StepMedia | null, shown: ViewMedia): StepView['media'] {
  if (!media) return { type: 'image', data: [] };
  if (media.type === 'image') return { type: 'image', data: media.data.map((id) => imageRef(id, shown)) };
  if (media.type === 'video') return { type: 'video', data: shown.videos.get(media.data) ?? { videoid: media.data } };
  return { type: 'embed', data: shown.embeds.get(media.data) ?? { embedid: media.data } };
}

/** The step's first image's `standard` URL, or `""` (no image, or not ready to be shown). */
function firstImageUrl(view: StepView['media']): string {
  if (view.type !== 'image' || view.data.length === 0) return '';
  const standard = view.data[0].standard;
  return typeof standard === 'string' ? standard : '';
}

export function stepView(step: StepRecord, orderby: number, media: ViewMedia): StepView {
  const shown = mediaView(step.media, media);
  return {
    guideid: step.guideid,
    stepid: step.stepid,
    orderby,
    revisionid: step.revisionid,
    title: step.title,
    lines: step.lines.map((line) => ({
      lineid: line.lineid,
      bullet: line.bullet,
      level: line.level,
      text_raw: line.text_raw,
      text_rendered: line.text_rendered,
    })),
    media: shown,
    comments: [],
    comment_count: step.comment_count ?? 0,
    imageURL: firstImageUrl(shown),
    time_estimate: null,
  };
}

export interface FullGuideParts {
  guide: GuideRecord;
  author: UserRecord | undefined;
  /** Prerequisite steps (unless excluded) followed by the guide's own, already in view form. */
  steps: StepView[];
  prerequisites: GuideSummary[];
  favorited: boolean;
  completed: boolean;
  canEdit: boolean;
  /** The caller may start a work-log entry on the guide (signed in; viewing it already checked). */
  workLogEnabled: boolean;
  siteUrl: string;
  media: ViewMedia;
}

export function fullGuideView(parts: FullGuideParts): FullGuideView {
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
    author: authorSummary(parts.author, guide.userid, siteUrl, guide.service_author),
    image: guideImage(guide, parts.media),
    flags: guide.flags.map(flagView),
    parts: guide.parts,
    tools: guide.tools,
    documents: guide.documents.map((documentid) => parts.media.documents.get(documentid) ?? { documentid }),
    prerequisites: parts.prerequisites,
    steps: parts.steps,
    comments: [],
    created_date: guide.created_date,
    published_date: guide.published_date,
    modified_date: guide.modified_date,
    prereq_modified_date: parts.prerequisites.reduce(
      (latest, prerequisite) => Math.max(latest, prerequisite.modified_date),
      0,
    ),
    featured_documentid: null,
    featured_document_embed_url: null,
    intro_video_url: null,
    intro_video: null,
    guide_revisionid: guide.revisionid,
    introduction_json: guide.introduction_raw ? parseWiki(guide.introduction_raw) : null,
    work_log_enabled: parts.workLogEnabled,
    work_log_url: parts.workLogEnabled ? `${siteUrl}/api/2.0/work_log?guideid=${guide.guideid}` : null,
  };
}
