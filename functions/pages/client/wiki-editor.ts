/**
 * The wiki and category page editor (issue 42 item 1): the page's contents in wiki syntax with a
 * live preview rendered by the server's own renderer (POST /api/2.0/wikis/preview; no second
 * renderer here), the draft kept in this browser, and PATCH with the page's revisionid: a stale
 * one is the same choice as the guide editor's (keep mine, take theirs, view both).
 */
import { ApiError, api } from './api.ts';
import { showConflict } from './conflict.ts';
import { el, field } from './dom.ts';
import { draftKey, dropDraft, readDraft, writeDraft } from './draft.ts';

interface ApiWiki {
  namespace: string;
  title: string;
  display_title?: string;
  contents_raw: string;
  revisionid: number | null;
  url?: string;
}

const isContents = (value: unknown): value is string => typeof value === 'string';

export class WikiEditor {
  private readonly key: string;
  private readonly status = el('p', { class: 'editor-status', role: 'status' });
  private readonly text = el('textarea', { rows: 16, name: 'contents', spellcheck: 'true' });
  private readonly preview = el('div', { class: 'editor-preview', id: 'wiki-preview' });
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;

  constructor(
    private readonly root: HTMLElement,
    private page: ApiWiki,
    private revisionid: number,
  ) {
    this.key = draftKey('wiki', `${page.namespace}:${page.title}`);
    this.text.value = page.contents_raw;
    const draft = readDraft(this.key, isContents);
    if (draft && draft.model !== page.contents_raw) {
      this.text.value = draft.model;
      // Saved against the revision the draft began from: a newer one is the API's 409, a choice.
      if (draft.baseRevision !== undefined) this.revisionid = draft.baseRevision;
      this.status.textContent = `Your unsaved draft of ${new Date(draft.savedAt).toLocaleString()} was restored.`;
    }
    this.text.addEventListener('input', () => {
      writeDraft(this.key, this.text.value, this.revisionid);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.renderPreview(), 300);
    });
  }

  mount(): void {
    const form = el('form', { class: 'editor-form', novalidate: true });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    form.append(
      field('Contents (wiki syntax)', this.text),
      el('div', { class: 'editor-actions' }, el('button', { type: 'submit', class: 'primary' }, 'Save')),
    );
    this.root.replaceChildren(
      this.status,
      el(
        'div',
        { class: 'editor-split' },
        form,
        el(
          'section',
          { 'aria-labelledby': 'wiki-preview-heading' },
          el('h2', { id: 'wiki-preview-heading' }, 'Preview'),
          this.preview,
        ),
      ),
    );
    void this.renderPreview();
  }

  /** The server's rendering (already sanitized there), parsed inert and moved in; the CSP runs none of it. */
  private async renderPreview(): Promise<void> {
    try {
      const { contents_rendered } = await api<{ contents_rendered: string }>('POST', '/wikis/preview', {
        contents: this.text.value,
      });
      const parsed = new DOMParser().parseFromString(contents_rendered, 'text/html');
      this.preview.replaceChildren(...parsed.body.childNodes);
    } catch (error) {
      this.preview.replaceChildren(el('p', { class: 'editor-error' }, (error as Error).message));
    }
  }

  private async save(revisionid = this.revisionid): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const path = `/wikis/${this.page.namespace}/${encodeURIComponent(this.page.title)}`;
      const saved = await api<ApiWiki>('PATCH', `${path}?revisionid=${revisionid}`, { contents: this.text.value });
      this.page = saved;
      this.revisionid = saved.revisionid ?? revisionid;
      dropDraft(this.key);
      this.status.textContent = 'Saved.';
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) this.conflict(error.body as ApiWiki);
      else this.status.textContent = (error as Error).message;
    } finally {
      this.busy = false;
    }
  }

  private conflict(theirs: ApiWiki): void {
    const mine = this.text.value;
    showConflict({
      what: 'page',
      theirs: () => el('pre', { class: 'editor-raw' }, theirs.contents_raw),
      mine: () => el('pre', { class: 'editor-raw' }, mine),
      keepMine: () => {
        if (typeof theirs.revisionid === 'number') this.revisionid = theirs.revisionid;
        void this.save(this.revisionid);
      },
      takeTheirs: () => {
        this.text.value = theirs.contents_raw;
        if (typeof theirs.revisionid === 'number') this.revisionid = theirs.revisionid;
        dropDraft(this.key);
        this.status.textContent = 'Their version is loaded; your draft was discarded.';
        void this.renderPreview();
      },
    });
    this.status.textContent = 'Someone else saved this page first: choose which version to keep.';
  }
}

/** The page and the revision a PATCH must name (a CATEGORY page's GET shows `revisionid: null`). */
export async function loadWiki(namespace: string, title: string): Promise<{ page: ApiWiki; revisionid: number }> {
  const path = `/wikis/${namespace}/${encodeURIComponent(title)}`;
  const page = await api<ApiWiki>('GET', path);
  if (typeof page.revisionid === 'number') return { page, revisionid: page.revisionid };
  const [latest] = await api<Array<{ revisionid: number }>>('GET', `${path}/revisions?limit=1`);
  if (!latest) throw new Error('The page has no revision to edit');
  return { page, revisionid: latest.revisionid };
}
