/**
 * User media rules, without I/O: the item types as the real service names them, what each
 * accepts (extensions, content types, sizes), and the image sizes of the Image object.
 */

/** The `{type}` values of /user/media/{type}/{itemId}, spelled as the real service spells them. */
export const MEDIA_TYPES = ['GuideImage', 'GuideVideoObject', 'GuideEmbedObject', 'Document'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export function isMediaType(value: string): value is MediaType {
  return (MEDIA_TYPES as readonly string[]).includes(value);
}

/** The real service's text for a bad `{type}` (LIVE, answered with 400). */
const MEDIA_TYPE_LIST = MEDIA_TYPES.join(', ');
export const INVALID_MEDIA_TYPE_MESSAGE = `Invalid type provided in the route. Type must one of: ${MEDIA_TYPE_LIST}.`;

const MB = 1024 * 1024;

/** API Gateway caps a request at 10 MB and Lambda a payload at 6 MB (base64 inflates by 4/3). */
export const MAX_RAW_UPLOAD_BYTES = 4 * MB;

export interface MediaConstraint {
  /** The name GET /user/media/constraints filters by. */
  name: string;
  type: MediaType;
  extensions: string[];
  /** Content types a browser upload may declare (the presigned policy pins the one sent). */
  content_types: string[];
  max_bytes: number;
  /** Raw bodies of POST /user/media/uploads stop lower, at the API's payload limit. */
  max_raw_upload_bytes: number;
  /** Images: the largest side, in pixels, accepted for processing. */
  max_pixels?: number;
}

const constraint = (c: Omit<MediaConstraint, 'max_raw_upload_bytes'>): MediaConstraint => ({
  ...c,
  max_raw_upload_bytes: Math.min(c.max_bytes, MAX_RAW_UPLOAD_BYTES),
});

export const MEDIA_CONSTRAINTS: MediaConstraint[] = [
  constraint({
    name: 'image',
    type: 'GuideImage',
    // Only what the bytes may be (decision 162): BMP, TIFF, SVG and the rest are refused.
    extensions: ['jpg', 'jpeg', 'png', 'gif', 'webp'],
    content_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
    max_bytes: 20 * MB,
    max_pixels: 12_000,
  }),
  constraint({
    name: 'video',
    type: 'GuideVideoObject',
    extensions: ['mp4', 'm4v', 'mov', 'webm', 'ogv'],
    content_types: ['video/mp4', 'video/quicktime', 'video/webm', 'video/ogg'],
    max_bytes: 500 * MB,
  }),
  constraint({
    name: 'document',
    type: 'Document',
    extensions: [
      'pdf',
      'doc',
      'docx',
      'xls',
      'xlsx',
      'ppt',
      'pptx',
      'odt',
      'ods',
      'odp',
      'txt',
      'csv',
      'rtf',
      'stl',
      'step',
      'stp',
      'obj',
    ],
    content_types: [
      'application/pdf',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.presentation',
      'text/plain',
      'text/csv',
      'application/rtf',
      'model/stl',
      'application/octet-stream',
    ],
    max_bytes: 100 * MB,
  }),
];

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot <= 0 ? '' : filename.slice(dot + 1).toLowerCase();
}

/** The constraint an upload named `filename` falls under, or undefined if the site takes no such file. */
export function constraintForFilename(filename: string): MediaConstraint | undefined {
  const extension = extensionOf(filename);
  return MEDIA_CONSTRAINTS.find((c) => c.extensions.includes(extension));
}

/** Content type stored with an upload, from its extension. */
export function contentTypeForFilename(filename: string): string {
  const extension = extensionOf(filename);
  const known: Record<string, string> = {
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    png: 'image/png',
    gif: 'image/gif',
    bmp: 'image/bmp',
    tif: 'image/tiff',
    tiff: 'image/tiff',
    webp: 'image/webp',
    mp4: 'video/mp4',
    m4v: 'video/mp4',
    mov: 'video/quicktime',
    webm: 'video/webm',
    ogv: 'video/ogg',
    pdf: 'application/pdf',
    txt: 'text/plain',
    csv: 'text/csv',
    rtf: 'application/rtf',
  };
  return known[extension] ?? 'application/octet-stream';
}

/**
 * A file name safe to use as the last part of an S3 key and in a Content-Disposition: the
 * base name only, no control characters, at most 200 characters.
 */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return cleaned.length > 200 ? cleaned.slice(cleaned.length - 200) : cleaned;
}

/** The sizes of the real service's Image object, smallest first; `original` is the upload itself. */
export const IMAGE_SIZES = [
  { name: 'mini', width: 41, height: 30 },
  { name: 'thumbnail', width: 96, height: 72 },
  { name: '140x105', width: 140, height: 105 },
  { name: '200x150', width: 200, height: 150 },
  { name: 'standard', width: 300, height: 225 },
  { name: '440x330', width: 440, height: 330 },
  { name: 'medium', width: 592, height: 444 },
  { name: 'large', width: 800, height: 600 },
  { name: 'huge', width: 1600, height: 1200 },
] as const;

export type ImageSizeName = (typeof IMAGE_SIZES)[number]['name'] | 'original';

/** The name under which a video's poster card (its Image's `original`) is stored. */
export const POSTER_SIZE = 'poster';
/** The poster card's own size (16:9). */
export const POSTER_WIDTH = 1280;
export const POSTER_HEIGHT = 720;

/** The ids a view shows, by the kind of object it shows them as. */
export interface ViewMediaIds {
  images: number[];
  videos: number[];
  documents: number[];
  embeds: number[];
}

/**
 * The site path of the default avatar (served by the pages group, decision 195). Every size URL
 * is this path with `.<size>` appended, as the apps build them from `original`.
 */
export const DEFAULT_AVATAR_PATH = '/assets/default-avatar';
