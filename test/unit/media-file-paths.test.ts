/**
 * The stable paths of videos' and documents' files (decision 312): the name part is safe as a key
 * and a path without encoding, the public copies are recognised (the site file leaves them out),
 * and the one range form the file route answers is read as S3 reads it.
 */
import { describe, expect, it } from 'vitest';
import { fileObjectKey, fileObjectName, isFilePublicCopyKey } from '../../shared/storage/media-objects.ts';
import { fileHeaders, parseRange } from '../../functions/pages/media-files.service.ts';

describe('video and document file paths', () => {
  it('names the file in letters, digits, dots, dashes and underscores', () => {
    expect(fileObjectName('Torque table é.pdf')).toBe('Torque_table_.pdf');
    expect(fileObjectName('../../etc/passwd')).toBe('passwd');
    expect(fileObjectName('.hidden')).toBe('hidden');
    expect(fileObjectName('日本.mp4')).toBe('_.mp4');
    expect(fileObjectName('')).toBe('file');
    expect(fileObjectKey('abc123', 'a b.mp4')).toBe('igi/abc123/a_b.mp4');
  });

  it('tells public copies from image objects and originals', () => {
    expect(isFilePublicCopyKey('igi/abc123/a_b.mp4')).toBe(true);
    expect(isFilePublicCopyKey('igi/abc123')).toBe(false);
    expect(isFilePublicCopyKey('igi/abc123.standard')).toBe(false);
    expect(isFilePublicCopyKey('originals/12/a.mp4')).toBe(false);
  });

  it('reads one range as S3 does; more than one, or a malformed one, is the whole file', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange('bytes=9-1', 100)).toBeUndefined();
    expect(parseRange('items=0-1', 100)).toBeUndefined();
  });

  it('sends a document as an attachment, a video inline, under a quoted safe name', () => {
    const document = fileHeaders({ type: 'Document', filename: 'Plan "v2".html', content_type: 'text/html' });
    expect(document.contentDisposition).toBe(
      `attachment; filename="Plan_v2_.html"; filename*=UTF-8''Plan%20%22v2%22.html`,
    );
    const video = fileHeaders({ type: 'GuideVideoObject', filename: 'clip.mp4', content_type: 'video/mp4' });
    expect(video.contentDisposition).toBe(`inline; filename="clip.mp4"; filename*=UTF-8''clip.mp4`);
  });
});
