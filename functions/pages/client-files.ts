/**
 * The pages' client code (decision 294): one script and one stylesheet built by esbuild from
 * functions/pages/client (infra/cdk/embeds.ts `buildPageClient`), shipped beside the bundle as an
 * embed and served at `/client/editor.<hash>.js|css`. The hash is of the file's own bytes, so a
 * URL names one content forever: browsers and CloudFront keep it a year, and a new build is a
 * new URL. Only the pages that need the client (the editors) name it; every other page runs no
 * script at all.
 */
import { createHash } from 'node:crypto';
import { embeddedPageClient } from '../../shared/http/embedded.ts';

export interface ClientFile {
  text: string;
  path: string;
  contentType: string;
}

let files: { script: ClientFile; style: ClientFile } | undefined;

function clientFile(text: string, extension: 'js' | 'css', contentType: string): ClientFile {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { text, path: `/client/editor.${hash}.${extension}`, contentType };
}

/** The script and stylesheet with their content-named paths (read from the embed on first use). */
export function pageClientFiles(): { script: ClientFile; style: ClientFile } {
  if (!files) {
    const client = embeddedPageClient();
    files = {
      script: clientFile(client.script, 'js', 'text/javascript; charset=utf-8'),
      style: clientFile(client.style, 'css', 'text/css; charset=utf-8'),
    };
  }
  return files;
}
