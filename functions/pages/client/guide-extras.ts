/**
 * The guide editor's sections beside the steps: the cover image, prerequisites, tools, parts and
 * documents (issue 42 item 1). They edit the model only; the editor's save writes them with the
 * guide's other fields (`PATCH /guides/{id}?revisionid=`), so the API's checks decide (a
 * prerequisite must be a guide the writer may read and not the guide itself; media must be ready
 * items of the writer's library). Every control is a labelled form control or a button.
 */
import { api } from './api.ts';
import { button, el, field } from './dom.ts';
import { type GuideModel, type ImageRef, type ItemModel, type NamedRef, newItem } from './guide-model.ts';

export type MediaKind = 'GuideImage' | 'Document';

export interface LibraryItem {
  id: number;
  guid: string;
  filename?: string;
}

/** What the sections need of the editor. */
export interface ExtrasHost {
  model: GuideModel;
  changed(): void;
  render(focus?: string): void;
  say(text: string): void;
  announce(text: string): void;
  upload(kind: MediaKind, files: File[], progress: HTMLElement, add: (item: LibraryItem) => void): Promise<void>;
  chooseFromLibrary(kind: MediaKind, title: string, add: (item: LibraryItem) => void): Promise<void>;
}

const DOCUMENT_TYPES = '.pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp,.txt';

export function extrasSections(host: ExtrasHost): HTMLElement[] {
  return [
    coverSection(host),
    prerequisitesSection(host),
    itemsSection(host, 'tools', 'Tools', 'tool'),
    itemsSection(host, 'parts', 'Parts', 'part'),
    documentsSection(host),
  ];
}

function section(id: string, legend: string, ...children: Array<Node | null>): HTMLFieldSetElement {
  return el(
    'fieldset',
    { class: `editor-extra editor-${id}`, id: `editor-${id}` },
    el('legend', {}, legend),
    ...children,
  );
}

function coverSection(host: ExtrasHost): HTMLElement {
  const { model } = host;
  const input = el('input', { type: 'file', accept: 'image/jpeg,image/png,image/gif,image/webp', id: 'cover-image' });
  const progress = el('div', { class: 'editor-uploads' });
  const set = (item: LibraryItem) => {
    model.image = { id: item.id, guid: item.guid } satisfies ImageRef;
    host.changed();
    host.render('cover-image');
    host.say('The cover image was set. Save to keep it.');
  };
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])].slice(0, 1);
    input.value = '';
    void host.upload('GuideImage', files, progress, set);
  });
  return section(
    'cover',
    'Cover image',
    model.image
      ? el(
          'div',
          { class: 'editor-thumbs' },
          el('img', { src: `/igi/${model.image.guid}.thumbnail`, alt: 'The cover image', width: 96, height: 72 }),
          button('Remove the cover image', () => {
            model.image = null;
            host.changed();
            host.render('cover-image');
          }),
        )
      : el('p', {}, 'No cover image.'),
    field(model.image ? 'Upload another cover image' : 'Upload a cover image', input),
    progress,
    button(
      'Choose the cover from the media library',
      () => void host.chooseFromLibrary('GuideImage', 'Choose the cover image', set),
    ),
  );
}

/** A guide named by its id, by a link to it, or by words of its title (the search's guides). */
async function findGuides(query: string): Promise<NamedRef[]> {
  const id = /^\s*(\d+)\s*$/.exec(query)?.[1] ?? /\/Guide\/(?:[^/]+\/)?(\d+)(?:[/?#.]|$)/.exec(query)?.[1];
  if (id) {
    const guide = await api<{ guideid: number; title: string }>('GET', `/guides/${id}`);
    return [{ id: guide.guideid, name: guide.title }];
  }
  const answer = await api<{ results?: Array<{ dataType?: string; guideid?: number; title?: string }> }>(
    'GET',
    `/search/${encodeURIComponent(query)}?filter=guide&limit=8`,
  );
  return (answer.results ?? []).flatMap((result) =>
    typeof result.guideid === 'number' && typeof result.title === 'string'
      ? [{ id: result.guideid, name: result.title }]
      : [],
  );
}

function prerequisitesSection(host: ExtrasHost): HTMLElement {
  const { model } = host;
  const query = el('input', { type: 'text', id: 'prerequisite-query', autocomplete: 'off' });
  const results = el('ul', { class: 'editor-found', 'aria-live': 'polite' });
  const add = (guide: NamedRef) => {
    if (guide.id === model.guideid) return host.say('A guide cannot be its own prerequisite.');
    if (model.prerequisites.some((known) => known.id === guide.id))
      return host.say(`${guide.name} is already a prerequisite.`);
    model.prerequisites.push(guide);
    host.changed();
    host.render('prerequisite-query');
    host.announce(`${guide.name} added as a prerequisite.`);
  };
  const find = async () => {
    const words = query.value.trim();
    if (!words) return;
    try {
      const found = await findGuides(words);
      if (found.length === 1 && /^\s*\d+\s*$|\/Guide\//.test(words)) return add(found[0]!);
      results.replaceChildren(
        ...(found.length === 0
          ? [el('li', {}, 'No guide found.')]
          : found.map((guide) =>
              el(
                'li',
                {},
                button(`Add ${guide.name}`, () => add(guide)),
              ),
            )),
      );
    } catch (error) {
      results.replaceChildren(el('li', { class: 'editor-error' }, (error as Error).message));
    }
  };
  // Enter in the box finds (not the form's save).
  query.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void find();
  });
  return section(
    'prerequisites',
    'Prerequisites',
    refList(host, model.prerequisites, 'prerequisite', 'prerequisite-query'),
    field('Add a prerequisite: guide id, link or title', query),
    button('Find the guide', () => void find(), { id: 'prerequisite-find' }),
    results,
  );
}

function documentsSection(host: ExtrasHost): HTMLElement {
  const { model } = host;
  const input = el('input', { type: 'file', accept: DOCUMENT_TYPES, multiple: true, id: 'guide-documents' });
  const progress = el('div', { class: 'editor-uploads' });
  const add = (item: LibraryItem) => {
    if (model.documents.some((known) => known.id === item.id)) return;
    model.documents.push({ id: item.id, name: item.filename ?? `Document ${item.id}` });
    host.changed();
    host.render('guide-documents');
  };
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])];
    input.value = '';
    void host.upload('Document', files, progress, add);
  });
  return section(
    'documents',
    'Documents',
    refList(host, model.documents, 'document', 'guide-documents'),
    field('Upload documents', input),
    progress,
    button(
      'Choose a document from the media library',
      () => void host.chooseFromLibrary('Document', 'Attach a document', add),
    ),
  );
}

/** Prerequisites or documents: each named, with a Remove button that says what it removes. */
function refList(host: ExtrasHost, refs: NamedRef[], noun: string, focus: string): HTMLElement {
  if (refs.length === 0) return el('p', {}, `No ${noun}s.`);
  return el(
    'ul',
    { class: 'editor-refs' },
    ...refs.map((ref, index) =>
      el(
        'li',
        {},
        el('span', {}, ref.name),
        button(
          'Remove',
          () => {
            refs.splice(index, 1);
            host.changed();
            host.render(focus);
            host.announce(`${ref.name} removed.`);
          },
          { 'aria-label': `Remove ${noun} ${ref.name}` },
        ),
      ),
    ),
  );
}

function itemsSection(host: ExtrasHost, list: 'tools' | 'parts', legend: string, noun: string): HTMLElement {
  const items = host.model[list];
  return section(
    list,
    legend,
    items.length === 0 ? el('p', {}, `No ${noun}s.`) : null,
    el('ul', { class: 'editor-items' }, ...items.map((item, index) => itemRow(host, items, item, index, noun))),
    button(`Add a ${noun}`, () => {
      items.push(newItem());
      host.changed();
      host.render(`${noun}-${items.length - 1}-text`);
    }),
  );
}

function itemRow(host: ExtrasHost, items: ItemModel[], item: ItemModel, index: number, noun: string): HTMLElement {
  const label = `${noun === 'tool' ? 'Tool' : 'Part'} ${index + 1}`;
  const input = (key: 'text' | 'quantity' | 'url' | 'notes', name: string, attributes = {}) => {
    const control = el('input', { type: 'text', value: item[key], id: `${noun}-${index}-${key}`, ...attributes });
    control.addEventListener('input', () => {
      item[key] = control.value;
      host.changed();
    });
    return field(`${label}: ${name}`, control);
  };
  const optional = el('input', { type: 'checkbox', id: `${noun}-${index}-optional`, checked: item.isoptional });
  optional.addEventListener('change', () => {
    item.isoptional = optional.checked;
    host.changed();
  });
  return el(
    'li',
    { class: 'editor-item' },
    input('text', 'name'),
    input('quantity', 'quantity', { inputmode: 'decimal' }),
    input('url', 'link', { inputmode: 'url' }),
    input('notes', 'notes'),
    el('div', { class: 'editor-check' }, optional, el('label', { for: optional.id }, 'Optional')),
    button(
      'Remove',
      () => {
        items.splice(index, 1);
        host.changed();
        host.render();
        host.announce(`${label} removed.`);
      },
      { 'aria-label': `Remove ${label.toLowerCase()}` },
    ),
  );
}
