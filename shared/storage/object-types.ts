/** What objects.ts hands out without loading the S3 client. */

export class ObjectTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ObjectTooLargeError';
  }
}

export interface UploadTarget {
  /** POST a multipart form here: every field of `fields`, then the file as `file`. */
  url: string;
  fields: Record<string, string>;
  /** Unix seconds after which S3 refuses the form. */
  expires: number;
  max_bytes: number;
}

export interface UploadRequest {
  bucket: string;
  key: string;
  contentType: string;
  maxBytes: number;
  expiresInSeconds: number;
}

/** What a HEAD tells of an object. */
export interface ObjectHead {
  size: number;
  /** As S3 gives it: quoted, the form an HTTP ETag header takes. */
  etag: string;
  contentType: string | undefined;
}

/** The headers an object is stored with, so that S3 (and the CDN before it) serves it with them. */
export interface ServedHeaders {
  contentType: string;
  contentDisposition?: string;
  cacheControl?: string;
}
