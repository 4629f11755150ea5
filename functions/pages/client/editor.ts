/**
 * The pages' client script (decision 294): built by esbuild into one file, loaded only by the
 * editor pages (functions/pages/editor.routes.ts). It finds the editor's shell and builds the
 * editor in it; without this script the shell says what to do instead.
 */
import './editor.css';
import { api } from './api.ts';
import { GuideEditor } from './guide-editor.ts';
import type { ApiGuide } from './guide-model.ts';
import { loadWiki, WikiEditor } from './wiki-editor.ts';

async function startWiki(root: HTMLElement): Promise<void> {
  try {
    const { page, revisionid } = await loadWiki(root.dataset.namespace ?? '', root.dataset.title ?? '');
    new WikiEditor(root, page, revisionid).mount();
  } catch (error) {
    root.replaceChildren(`The editor could not start: ${(error as Error).message}`);
  }
}

async function start(): Promise<void> {
  const wiki = document.querySelector<HTMLElement>('[data-editor="wiki"]');
  if (wiki) return startWiki(wiki);
  const root = document.querySelector<HTMLElement>('[data-editor="guide"]');
  if (!root) return;
  const guideid = root.dataset.guideid;
  const types = (root.dataset.guideTypes ?? 'how-to').split(',').filter(Boolean);
  try {
    const guide = guideid ? await api<ApiGuide>('GET', `/guides/${guideid}`) : undefined;
    const editor = new GuideEditor(root, guide, root.dataset.category ?? '', types);
    if (guide) editor.setViewUrl(guide.url);
    editor.mount();
  } catch (error) {
    root.replaceChildren(`The editor could not start: ${(error as Error).message}`);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start());
else void start();
