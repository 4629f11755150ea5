/**
 * The guide editor (issue 42 item 1): the guide's fields, its steps and their lines, images by
 * upload or from the media library, steps reordered by drag or by keyboard (Move buttons, or
 * Alt+ArrowUp/Down on a step, announced in a live region), autosave of the draft in this browser,
 * save, publish and release, all through /api/2.0. A stale revision (someone saved first) is a
 * choice: keep mine, take theirs, or view both; never a lost edit.
 */
import { ApiError, api, type PresignedUpload, postToStorage } from './api.ts';
import { showConflict } from './conflict.ts';
import { BULLETS, DIFFICULTIES, MAX_LINE_LEVEL, MAX_LINES_PER_STEP } from '../../../shared/domain/guide-rules.ts';
import { button, el, field } from './dom.ts';
import { draftKey, dropDraft, readDraft, writeDraft } from './draft.ts';
import { type ExtrasHost, extrasSections, type LibraryItem, type MediaKind } from './guide-extras.ts';
import {
  type ApiGuide,
  emptyModel,
  type GuideModel,
  guideFields,
  isGuideModel,
  modelOf,
  newLine,
  newStep,
  sameJson,
  type StepModel,
  stepFields,
  withExtras,
} from './guide-model.ts';

const BULLET_LABEL: Record<string, string> = {
  icon_note: 'Note',
  icon_caution: 'Caution',
  icon_reminder: 'Reminder',
  light_blue: 'Light blue',
};

interface MediaItem {
  id: number;
  guid: string;
  type: string;
  isReady: boolean;
  filename?: string;
}

export class GuideEditor {
  private model: GuideModel;
  /** The guide as last read from the server: what a save compares against. */
  private base: GuideModel | undefined;
  private key: string;
  private readonly form: HTMLFormElement;
  private readonly stepsList: HTMLOListElement;
  private readonly status: HTMLElement;
  private readonly announcer: HTMLElement;
  private busy = false;
  private dragged: number | undefined;
  /**
   * The revision the model was made from: the base's, or a restored draft's own. A save checks
   * the server still has it, so a draft begun before someone else's save is a conflict, not an
   * overwrite, even across reloads.
   */
  private draftBase: number | undefined;

  constructor(
    private readonly root: HTMLElement,
    guide: ApiGuide | undefined,
    private readonly category: string,
    private readonly types: string[],
  ) {
    this.base = guide && modelOf(guide);
    this.model = guide ? modelOf(guide) : emptyModel(category, types[0] ?? 'how-to');
    this.key = draftKey('guide', guide ? String(guide.guideid) : `new:${category}`);
    this.status = el('p', { class: 'editor-status', role: 'status' });
    this.announcer = el('p', { class: 'visually-hidden', 'aria-live': 'assertive' });
    this.stepsList = el('ol', { class: 'editor-steps' });
    this.form = el('form', { class: 'editor-form', novalidate: true });
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    this.draftBase = guide?.revisionid;
    const draft = readDraft(this.key, isGuideModel);
    const restored = draft && withExtras(draft.model, this.model);
    if (draft && restored && !sameJson(restored, this.model)) {
      this.model = restored;
      this.draftBase = draft.baseRevision;
      this.say(`Your unsaved draft of ${new Date(draft.savedAt).toLocaleString()} was restored.`);
    }
  }

  mount(): void {
    this.root.replaceChildren(this.status, this.announcer, this.form);
    this.render();
  }

  /** Shown to the person (status line) and to screen readers (a polite live region). */
  private say(text: string): void {
    this.status.textContent = text;
  }

  private announce(text: string): void {
    this.announcer.textContent = text;
  }

  /** Every change is kept in this browser at once. */
  private changed(): void {
    writeDraft(this.key, this.model, this.draftBase);
  }

  private render(focus?: string): void {
    const model = this.model;
    const text = (value: string, update: (value: string) => void, attributes = {}) => {
      const input = el('input', { type: 'text', value, ...attributes });
      input.addEventListener('input', () => {
        update(input.value);
        this.changed();
      });
      return input;
    };
    const area = (name: 'introduction' | 'conclusion') => {
      const textarea = el('textarea', { rows: 4, name });
      textarea.value = model[name];
      textarea.addEventListener('input', () => {
        model[name] = textarea.value;
        this.changed();
      });
      return textarea;
    };
    const difficulty = el(
      'select',
      { name: 'difficulty' },
      el('option', { value: '' }, 'Not given'),
      ...DIFFICULTIES.map((name) => el('option', { value: name, selected: model.difficulty === name }, name)),
    );
    difficulty.addEventListener('change', () => {
      model.difficulty = difficulty.value;
      this.changed();
    });
    const type =
      model.guideid === undefined
        ? (() => {
            const select = el(
              'select',
              { name: 'type' },
              ...this.types.map((name) => el('option', { value: name, selected: model.type === name }, name)),
            );
            select.addEventListener('change', () => {
              model.type = select.value;
              this.changed();
            });
            return field('Type', select);
          })()
        : null;

    this.stepsList.replaceChildren(...model.steps.map((step, index) => this.stepItem(step, index)));
    const actions = el(
      'div',
      { class: 'editor-actions' },
      el('button', { type: 'submit', class: 'primary' }, model.guideid === undefined ? 'Create guide' : 'Save'),
      model.guideid !== undefined && !model.public ? button('Publish', () => void this.publish()) : null,
      model.guideid !== undefined ? this.releaseControls() : null,
      model.guideid !== undefined && this.viewUrl ? el('a', { href: this.viewUrl }, 'View the guide') : null,
    );
    this.form.replaceChildren(
      el(
        'fieldset',
        { class: 'editor-guide' },
        el('legend', {}, 'Guide'),
        field(
          'Title',
          text(model.title, (value) => (model.title = value), { name: 'title', required: true }),
        ),
        field(
          'Category',
          text(model.category, (value) => (model.category = value), { name: 'category' }),
        ),
        type,
        field(
          'Summary',
          text(model.summary, (value) => (model.summary = value), { name: 'summary', maxlength: 254 }),
        ),
        field('Introduction (wiki syntax)', area('introduction')),
        el(
          'div',
          { class: 'editor-row' },
          field(
            'Time from (minutes)',
            text(model.timeMin, (value) => (model.timeMin = value), { inputmode: 'numeric', name: 'time-min' }),
          ),
          field(
            'Time to (minutes)',
            text(model.timeMax, (value) => (model.timeMax = value), { inputmode: 'numeric', name: 'time-max' }),
          ),
          field('Difficulty', difficulty),
        ),
      ),
      ...extrasSections(this.extrasHost()),
      el('h2', { id: 'editor-steps-heading' }, 'Steps'),
      el(
        'p',
        { class: 'editor-hint', id: 'editor-steps-hint' },
        'Drag a step by its handle, or press Alt+Arrow Up or Alt+Arrow Down on a step to move it.',
      ),
      this.stepsList,
      button('Add a step', () => {
        model.steps.push(newStep());
        this.changed();
        this.render(`step-title-${model.steps.length - 1}`);
      }),
      field('Conclusion (wiki syntax)', area('conclusion')),
      actions,
    );
    if (focus) document.getElementById(focus)?.focus();
  }

  private viewUrl: string | undefined;

  /** The cover, prerequisites, tools, parts and documents sections' view of the editor. */
  private extrasHost(): ExtrasHost {
    return {
      model: this.model,
      changed: () => this.changed(),
      render: (focus) => this.render(focus),
      say: (text) => this.say(text),
      announce: (text) => this.announce(text),
      upload: (kind, files, progress, add) => this.uploadMedia(kind, files, progress, add),
      chooseFromLibrary: (kind, title, add) => this.chooseFromLibrary(kind, title, add),
    };
  }

  private stepItem(step: StepModel, index: number): HTMLLIElement {
    const count = this.model.steps.length;
    const title = el('input', { type: 'text', value: step.title, id: `step-title-${index}`, name: 'step-title' });
    title.addEventListener('input', () => {
      step.title = title.value;
      this.changed();
    });
    const handle = el('span', { class: 'drag-handle', 'aria-hidden': 'true', title: 'Drag to move' }, '⠿');
    const item = el(
      'li',
      {
        class: 'editor-step',
        draggable: 'true',
        'aria-labelledby': `step-label-${index}`,
        'aria-describedby': 'editor-steps-hint',
        'data-step': index,
      },
      el(
        'div',
        { class: 'editor-step-head' },
        handle,
        el('h3', { id: `step-label-${index}` }, `Step ${index + 1}`),
        button('Move up', () => this.move(index, index - 1, `move-up-${index - 1}`), {
          id: `move-up-${index}`,
          disabled: index === 0,
          'aria-label': `Move up (step ${index + 1})`,
        }),
        button('Move down', () => this.move(index, index + 1, `move-down-${index + 1}`), {
          id: `move-down-${index}`,
          disabled: index === count - 1,
          'aria-label': `Move down (step ${index + 1})`,
        }),
        button('Remove', () => this.removeStep(index), { 'aria-label': `Remove (step ${index + 1})`, class: 'danger' }),
      ),
      field('Title', title),
      el('ul', { class: 'editor-lines' }, ...step.lines.map((_, lineIndex) => this.lineItem(step, index, lineIndex))),
      step.lines.length < MAX_LINES_PER_STEP
        ? button('Add a line', () => {
            step.lines.push(newLine());
            this.changed();
            this.render(`line-${index}-${step.lines.length - 1}`);
          })
        : null,
      this.imageControls(step, index),
    );
    item.addEventListener('keydown', (event) => {
      if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
      event.preventDefault();
      const to = event.key === 'ArrowUp' ? index - 1 : index + 1;
      this.move(index, to, `step-title-${to}`);
    });
    item.addEventListener('dragstart', (event) => {
      this.dragged = index;
      event.dataTransfer?.setData('text/plain', String(index));
    });
    item.addEventListener('dragover', (event) => event.preventDefault());
    item.addEventListener('drop', (event) => {
      event.preventDefault();
      if (this.dragged !== undefined) this.move(this.dragged, index, `step-title-${index}`);
      this.dragged = undefined;
    });
    return item;
  }

  private lineItem(step: StepModel, stepIndex: number, lineIndex: number): HTMLLIElement {
    const line = step.lines[lineIndex]!;
    const label = `Step ${stepIndex + 1}, line ${lineIndex + 1}`;
    const bullet = el(
      'select',
      { 'aria-label': `${label}: bullet` },
      ...BULLETS.map((name) =>
        el('option', { value: name, selected: line.bullet === name }, BULLET_LABEL[name] ?? name.replace('_', ' ')),
      ),
    );
    bullet.addEventListener('change', () => {
      line.bullet = bullet.value;
      this.changed();
    });
    const level = el(
      'select',
      { 'aria-label': `${label}: level` },
      ...Array.from({ length: MAX_LINE_LEVEL + 1 }, (_, value) =>
        el('option', { value, selected: line.level === value }, value === 0 ? 'Top level' : `Indent ${value}`),
      ),
    );
    level.addEventListener('change', () => {
      line.level = Number(level.value);
      this.changed();
    });
    const text = el('input', {
      type: 'text',
      value: line.text,
      id: `line-${stepIndex}-${lineIndex}`,
      'aria-label': `${label}: text`,
    });
    text.addEventListener('input', () => {
      line.text = text.value;
      this.changed();
    });
    return el(
      'li',
      { class: `editor-line level-${line.level}` },
      bullet,
      level,
      text,
      step.lines.length > 1
        ? button(
            'Remove',
            () => {
              step.lines.splice(lineIndex, 1);
              this.changed();
              this.render(`line-${stepIndex}-${Math.max(0, lineIndex - 1)}`);
            },
            { 'aria-label': `Remove (${label.toLowerCase()})` },
          )
        : null,
    );
  }

  private imageControls(step: StepModel, index: number): HTMLElement {
    const input = el('input', { type: 'file', accept: 'image/jpeg,image/png,image/gif,image/webp', multiple: true });
    input.id = `step-images-${index}`;
    const progress = el('div', { class: 'editor-uploads' });
    input.addEventListener('change', () => {
      const files = [...(input.files ?? [])];
      input.value = '';
      void this.uploadStepImages(step, files, progress);
    });
    return el(
      'div',
      { class: 'editor-images' },
      el(
        'ul',
        { class: 'editor-thumbs' },
        ...step.images.map((image, imageIndex) =>
          el(
            'li',
            {},
            el('img', {
              src: `/igi/${image.guid}.thumbnail`,
              alt: `Step ${index + 1}, image ${imageIndex + 1}`,
              width: 96,
              height: 72,
            }),
            button(
              'Remove',
              () => {
                step.images.splice(imageIndex, 1);
                this.changed();
                this.render(`step-images-${index}`);
              },
              { 'aria-label': `Remove (image ${imageIndex + 1} of step ${index + 1})` },
            ),
          ),
        ),
      ),
      field(`Upload images to step ${index + 1}`, input),
      progress,
      button('Choose from the media library', () => void this.chooseStepImage(step, index)),
    );
  }

  private move(from: number, to: number, focus: string): void {
    const steps = this.model.steps;
    if (to < 0 || to >= steps.length || from === to) return;
    const [step] = steps.splice(from, 1);
    steps.splice(to, 0, step!);
    this.changed();
    this.render(focus);
    this.announce(`Step ${from + 1} moved to position ${to + 1} of ${steps.length}.`);
  }

  private removeStep(index: number): void {
    this.model.steps.splice(index, 1);
    this.changed();
    this.render();
    this.announce(`Step ${index + 1} removed.`);
  }

  /** Each file straight to storage (the API's presigned POST), with its progress; then ready. */
  private async uploadMedia(
    kind: MediaKind,
    files: File[],
    progressArea: HTMLElement,
    add: (item: LibraryItem) => void,
  ): Promise<void> {
    for (const file of files) {
      const bar = el('progress', { max: 1, value: 0, 'aria-label': `Uploading ${file.name}` });
      const row = el('p', {}, `${file.name} `, bar);
      progressArea.append(row);
      try {
        const target = await api<PresignedUpload>('POST', '/user/media/uploads/presigned', {
          filename: file.name,
          content_type: file.type || 'application/octet-stream',
          size: file.size,
        });
        if (target.type !== kind)
          throw new Error(`${file.name} is not ${kind === 'Document' ? 'a document' : 'an image'}`);
        await postToStorage(target.upload, file, (done) => {
          bar.value = done;
        });
        const item = await this.whenReady(kind, target.id);
        add({ id: item.id, guid: item.guid, filename: item.filename ?? file.name });
        row.remove();
      } catch (error) {
        row.replaceChildren(`${file.name}: ${(error as Error).message}`);
        row.className = 'editor-error';
      }
    }
  }

  private async uploadStepImages(step: StepModel, files: File[], progressArea: HTMLElement): Promise<void> {
    await this.uploadMedia('GuideImage', files, progressArea, (item) => {
      step.images.push({ id: item.id, guid: item.guid });
      this.changed();
    });
    this.render();
    this.say(`${files.length === 1 ? 'The image was' : 'The images were'} added. Save to keep them in the guide.`);
  }

  /** The media item once its sizes are made (processing follows the upload). */
  private async whenReady(kind: MediaKind, id: number): Promise<MediaItem> {
    for (let attempt = 0; attempt < 120; attempt++) {
      const item = await api<MediaItem & { status?: string; failure?: string }>('GET', `/user/media/${kind}/${id}`);
      if (item.isReady || item.status === 'ready') return item;
      if (item.status === 'failed') throw new Error(item.failure || 'The file could not be processed');
      await new Promise((resolve) => setTimeout(resolve, 250 + attempt * 50));
    }
    throw new Error('The file is still being processed; add it from the media library later');
  }

  private chooseStepImage(step: StepModel, index: number): Promise<void> {
    return this.chooseFromLibrary('GuideImage', `Add an image to step ${index + 1}`, (item) => {
      step.images.push({ id: item.id, guid: item.guid });
      this.changed();
      this.render(`step-images-${index}`);
    });
  }

  /** A dialog of the caller's ready media of one kind; choosing one runs `add`. */
  private async chooseFromLibrary(kind: MediaKind, title: string, add: (item: LibraryItem) => void): Promise<void> {
    const items = (await api<MediaItem[]>('GET', '/user/media/current?limit=60')).filter(
      (item) => item.type === kind && item.isReady,
    );
    const dialog = el('dialog', { class: 'editor-dialog', 'aria-labelledby': 'library-title' });
    const close = () => {
      dialog.close();
      dialog.remove();
    };
    const noun = kind === 'Document' ? 'documents' : 'images';
    dialog.append(
      el('h2', { id: 'library-title' }, title),
      items.length === 0
        ? el('p', {}, `Your media library has no ${noun} yet.`)
        : el(
            'ul',
            { class: 'editor-library' },
            ...items.map((item) => {
              const name = item.filename ?? `${kind === 'Document' ? 'document' : 'image'} ${item.id}`;
              const choose =
                kind === 'Document'
                  ? el('button', { type: 'button' }, `Add ${name}`)
                  : el(
                      'button',
                      { type: 'button', 'aria-label': `Add ${name}` },
                      el('img', { src: `/igi/${item.guid}.thumbnail`, alt: '', width: 96, height: 72 }),
                    );
              choose.addEventListener('click', () => {
                close();
                add(item);
              });
              return el('li', {}, choose);
            }),
          ),
      button('Cancel', close),
    );
    document.body.append(dialog);
    dialog.showModal();
  }

  private releaseControls(): HTMLElement {
    const kind = el(
      'select',
      { 'aria-label': 'Release type' },
      el('option', { value: 'minor' }, 'Minor release'),
      el('option', { value: 'major' }, 'Major release'),
    );
    return el(
      'span',
      { class: 'editor-release' },
      kind,
      button('Release', () => void this.release(kind.value)),
    );
  }

  private async run(work: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.form.setAttribute('aria-busy', 'true');
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) await this.conflict();
      else this.say((error as Error).message);
    } finally {
      this.busy = false;
      this.form.removeAttribute('aria-busy');
    }
  }

  save(): Promise<void> {
    return this.run(async () => {
      await this.write();
      this.say('Saved.');
    });
  }

  private publish(): Promise<void> {
    return this.run(async () => {
      const guideid = await this.write();
      const guide = await api<ApiGuide>('GET', `/guides/${guideid}`);
      this.loaded(await api<ApiGuide>('PUT', `/guides/${guideid}/public?revisionid=${guide.revisionid}`));
      this.say('Saved and published: everyone who may read the category sees it.');
    });
  }

  private release(kind: string): Promise<void> {
    return this.run(async () => {
      const guideid = await this.write();
      const release = await api<{ version?: string | null; status?: string }>('POST', '/guides/releases', {
        guideid,
        release_type: kind,
      });
      this.say(
        release.status === 'pending_approval'
          ? 'Saved; the release waits for approval.'
          : `Saved and released as version ${release.version ?? ''}.`,
      );
    });
  }

  /** Makes the server's guide what the model holds; answers the guideid. */
  private async write(): Promise<number> {
    const model = this.model;
    if (!model.title.trim()) throw new Error('Give the guide a title first.');
    let guide: ApiGuide;
    if (model.guideid === undefined) {
      guide = await api<ApiGuide>('POST', '/guides', { ...guideFields(model), type: model.type });
      dropDraft(this.key);
      this.key = draftKey('guide', String(guide.guideid));
      history.replaceState(null, '', `/Edit/Guide/${guide.guideid}`);
    } else {
      // Someone saved first? The API would refuse our first write with 409; ask before writing anything.
      guide = await api<ApiGuide>('GET', `/guides/${model.guideid}`);
      if (guide.revisionid !== this.draftBase) throw new ApiError(409, guide);
      if (!this.base || !sameJson(guideFields(model), guideFields(this.base)))
        guide = await api<ApiGuide>(
          'PATCH',
          `/guides/${guide.guideid}?revisionid=${guide.revisionid}`,
          guideFields(model),
        );
    }
    const guideid = guide.guideid;
    const base = new Map((this.base?.steps ?? []).map((step) => [step.stepid, step]));
    const kept = new Set(model.steps.map((step) => step.stepid).filter((id) => id !== undefined));
    for (const old of this.base?.steps ?? [])
      if (old.stepid !== undefined && !kept.has(old.stepid))
        guide = await api<ApiGuide>('DELETE', `/guides/${guideid}/steps/${old.stepid}?revisionid=${old.revisionid}`);
    for (const step of model.steps) {
      const before = step.stepid === undefined ? undefined : base.get(step.stepid);
      if (step.stepid === undefined || !before) {
        const known = new Set(guide.steps.map((saved) => saved.stepid));
        guide = await api<ApiGuide>('POST', `/guides/${guideid}/steps`, {
          orderby: guide.steps.length + 1,
          ...stepFields(step),
        });
        step.stepid = guide.steps.find((saved) => !known.has(saved.stepid))?.stepid;
      } else if (!sameJson(stepFields(step), stepFields(before))) {
        await api('PATCH', `/guides/${guideid}/steps/${step.stepid}?revisionid=${before.revisionid}`, stepFields(step));
      }
    }
    guide = await api<ApiGuide>('GET', `/guides/${guideid}`);
    const order = model.steps.map((step) => step.stepid!);
    if (
      !sameJson(
        order,
        guide.steps.map((step) => step.stepid),
      )
    )
      guide = await api<ApiGuide>('PUT', `/guides/${guideid}/steporder?revisionid=${guide.revisionid}`, {
        stepids: order,
      });
    this.loaded(guide);
    return guideid;
  }

  /** The server's guide becomes the base and the model; the draft has landed. */
  private loaded(guide: ApiGuide): void {
    this.base = modelOf(guide);
    this.model = modelOf(guide);
    this.draftBase = guide.revisionid;
    this.viewUrl = new URL(guide.url, location.href).pathname;
    dropDraft(this.key);
    this.render();
  }

  setViewUrl(url: string): void {
    this.viewUrl = new URL(url, location.href).pathname;
  }

  /** Someone saved first: keep mine (over theirs), take theirs, or view both. Nothing is lost unasked. */
  private async conflict(): Promise<void> {
    const theirs = await api<ApiGuide>('GET', `/guides/${this.model.guideid}`);
    showConflict({
      what: 'guide',
      theirs: () => summary(modelOf(theirs)),
      mine: () => summary(this.model),
      keepMine: () => this.keepMine(theirs),
      takeTheirs: () => {
        this.loaded(theirs);
        this.say('Their version is loaded; your draft was discarded.');
      },
    });
    this.say('Someone else saved this guide first: choose which version to keep.');
  }

  /** My model over their revision: the next save writes mine on top of theirs. */
  private keepMine(theirs: ApiGuide): void {
    const current = modelOf(theirs);
    const known = new Map(current.steps.map((step) => [step.stepid, step]));
    for (const step of this.model.steps) {
      const now = step.stepid === undefined ? undefined : known.get(step.stepid);
      if (now) step.revisionid = now.revisionid;
      else delete step.stepid; // they deleted it: mine is written as a new step
    }
    this.base = current;
    this.model.revisionid = current.revisionid;
    this.draftBase = current.revisionid;
    this.changed();
    this.render();
    void this.save();
  }
}

/** One version, as the "view both" choice shows it. */
function summary(model: GuideModel): HTMLElement {
  return el(
    'div',
    {},
    el('p', {}, el('strong', {}, model.title)),
    el('p', {}, model.introduction),
    el(
      'ol',
      {},
      ...model.steps.map((step) =>
        el('li', {}, step.title, el('ul', {}, ...step.lines.map((line) => el('li', {}, line.text)))),
      ),
    ),
  );
}
