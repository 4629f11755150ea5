/**
 * The guide as the editor holds it, read from and compared with the API's guide (GET
 * /api/2.0/guides/{guideid}). Pure data: what `save` sends is the difference between the model
 * and the base (the guide as last read from the server). The rules of lines (bullets, levels, how
 * many) are the server's own, shared/domain/guide-rules.ts, bundled with the editor.
 */

export interface LineModel {
  text: string;
  bullet: string;
  level: number;
  lineid?: number;
}

export interface ImageRef {
  id: number;
  guid: string;
}

export interface StepModel {
  /** A key of this browser for a step not saved yet; `s<stepid>` for a saved one. */
  key: string;
  stepid?: number;
  revisionid?: number;
  title: string;
  lines: LineModel[];
  images: ImageRef[];
}

/** A part or tool as the editor holds it; fields the editor does not show travel in `extra`. */
export interface ItemModel {
  text: string;
  /** As typed ('' for none). */
  quantity: string;
  url: string;
  notes: string;
  isoptional: boolean;
  extra: { type?: string; thumbnail?: string; featured?: boolean };
}

/** A prerequisite guide or an attached document: its id and the name shown. */
export interface NamedRef {
  id: number;
  name: string;
}

export interface GuideModel {
  guideid?: number;
  revisionid?: number;
  title: string;
  category: string;
  type: string;
  summary: string;
  introduction: string;
  conclusion: string;
  difficulty: string;
  /** Minutes, as typed ('' for none). */
  timeMin: string;
  timeMax: string;
  public: boolean;
  steps: StepModel[];
  /** The cover image. */
  image: ImageRef | null;
  prerequisites: NamedRef[];
  documents: NamedRef[];
  parts: ItemModel[];
  tools: ItemModel[];
}

/** A part or tool as the API reads it. */
export interface ApiItem {
  text: string;
  notes: string | null;
  type: string;
  quantity: number;
  url: string | null;
  thumbnail: string | null;
  isoptional: boolean;
  featured: boolean;
}

/** The parts of the API's guide the editor reads. */
export interface ApiGuide {
  guideid: number;
  revisionid: number;
  title: string;
  category: string;
  type: string;
  summary: string | null;
  introduction_raw: string;
  conclusion_raw: string;
  difficulty: string | null;
  time_required_min: number;
  time_required_max: number;
  public: boolean;
  url: string;
  image?: { id: number; guid: string } | null;
  parts?: ApiItem[];
  tools?: ApiItem[];
  documents?: Array<{ documentid: number; filename?: string; title?: string }>;
  prerequisites?: Array<{ guideid: number; title: string }>;
  steps: Array<{
    stepid: number;
    revisionid: number;
    title: string;
    lines: Array<{ text_raw: string; bullet: string; level: number; lineid?: number }>;
    media?: { type: string; data: unknown };
  }>;
}

function minutes(seconds: number): string {
  return seconds > 0 ? String(Math.round(seconds / 60)) : '';
}

function stepImages(media: ApiGuide['steps'][number]['media']): ImageRef[] {
  if (media?.type !== 'image' || !Array.isArray(media.data)) return [];
  return media.data.flatMap((image: { id?: unknown; guid?: unknown }) =>
    typeof image?.id === 'number' && typeof image.guid === 'string' ? [{ id: image.id, guid: image.guid }] : [],
  );
}

function itemModel(item: ApiItem): ItemModel {
  return {
    text: item.text,
    quantity: item.quantity > 0 ? String(item.quantity) : '',
    url: item.url ?? '',
    notes: item.notes ?? '',
    isoptional: item.isoptional === true,
    extra: {
      ...(item.type ? { type: item.type } : {}),
      ...(item.thumbnail ? { thumbnail: item.thumbnail } : {}),
      ...(item.featured ? { featured: true } : {}),
    },
  };
}

export function newItem(): ItemModel {
  return { text: '', quantity: '', url: '', notes: '', isoptional: false, extra: {} };
}

/** A part or tool as POST/PATCH /guides take it; one without a name is left out. */
function itemFields(items: ItemModel[]): unknown[] {
  return items
    .filter((item) => item.text.trim() !== '')
    .map((item) => {
      const quantity = Number(item.quantity);
      return {
        text: item.text.trim(),
        ...(item.quantity.trim() !== '' && Number.isFinite(quantity) && quantity >= 0 ? { quantity } : {}),
        url: item.url.trim() === '' ? null : item.url.trim(),
        notes: item.notes.trim() === '' ? null : item.notes,
        isoptional: item.isoptional,
        ...item.extra,
      };
    });
}

export function modelOf(guide: ApiGuide): GuideModel {
  return {
    guideid: guide.guideid,
    revisionid: guide.revisionid,
    title: guide.title,
    category: guide.category,
    type: guide.type,
    summary: guide.summary ?? '',
    introduction: guide.introduction_raw ?? '',
    conclusion: guide.conclusion_raw ?? '',
    difficulty: guide.difficulty ?? '',
    timeMin: minutes(guide.time_required_min),
    timeMax: minutes(guide.time_required_max),
    public: guide.public,
    steps: guide.steps.map((step) => ({
      key: `s${step.stepid}`,
      stepid: step.stepid,
      revisionid: step.revisionid,
      title: step.title,
      lines: step.lines.map((line) => ({
        text: line.text_raw,
        bullet: line.bullet,
        level: line.level,
        ...(line.lineid ? { lineid: line.lineid } : {}),
      })),
      images: stepImages(step.media),
    })),
    image: guide.image ? { id: guide.image.id, guid: guide.image.guid } : null,
    prerequisites: (guide.prerequisites ?? []).map((prerequisite) => ({
      id: prerequisite.guideid,
      name: prerequisite.title,
    })),
    documents: (guide.documents ?? []).map((document) => ({
      id: document.documentid,
      name: document.title || document.filename || `Document ${document.documentid}`,
    })),
    parts: (guide.parts ?? []).map(itemModel),
    tools: (guide.tools ?? []).map(itemModel),
  };
}

export function emptyModel(category: string, type: string): GuideModel {
  return {
    title: '',
    category,
    type,
    summary: '',
    introduction: '',
    conclusion: '',
    difficulty: '',
    timeMin: '',
    timeMax: '',
    public: false,
    steps: [],
    image: null,
    prerequisites: [],
    documents: [],
    parts: [],
    tools: [],
  };
}

let keyCounter = 0;
export function newStep(): StepModel {
  keyCounter += 1;
  return { key: `n${Date.now().toString(36)}${keyCounter}`, title: '', lines: [newLine()], images: [] };
}

export function newLine(): LineModel {
  return { text: '', bullet: 'black', level: 0 };
}

/** The guide fields as POST/PATCH /guides take them. */
export function guideFields(model: GuideModel): Record<string, unknown> {
  const seconds = (text: string) => (text.trim() === '' ? 0 : Math.max(0, Math.round(Number(text) * 60)) || 0);
  return {
    title: model.title,
    category: model.category,
    summary: model.summary,
    introduction: model.introduction,
    conclusion: model.conclusion,
    difficulty: model.difficulty === '' ? null : model.difficulty,
    time_required_min: seconds(model.timeMin),
    time_required_max: seconds(model.timeMax),
    image: model.image?.id ?? null,
    prerequisites: model.prerequisites.map((prerequisite) => prerequisite.id),
    documents: model.documents.map((document) => document.id),
    parts: itemFields(model.parts),
    tools: itemFields(model.tools),
  };
}

/** A step as POST/PATCH …/steps take it. Empty lines are left out; a step keeps at least one. */
export function stepFields(step: StepModel): { title: string; lines: unknown[]; media: unknown } {
  const lines = step.lines
    .filter((line) => line.text.trim() !== '')
    .map((line) => ({ text: line.text, bullet: line.bullet, level: line.level, lineid: line.lineid ?? null }));
  return {
    title: step.title,
    lines: lines.length > 0 ? lines : [{ text: step.title || '…', bullet: 'black', level: 0 }],
    media: step.images.length > 0 ? { type: 'image', data: step.images.map((image) => image.id) } : null,
  };
}

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether a value read back from localStorage has the model's shape. */
export function isGuideModel(value: unknown): value is GuideModel {
  const model = value as GuideModel | null;
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.title === 'string' &&
    typeof model.category === 'string' &&
    typeof model.introduction === 'string' &&
    typeof model.summary === 'string' &&
    typeof model.conclusion === 'string' &&
    Array.isArray(model.steps) &&
    // A draft kept before the editor had these sections has none of them (see withExtras).
    (model.image == null || (typeof model.image.id === 'number' && typeof model.image.guid === 'string')) &&
    [model.prerequisites, model.documents].every(
      (refs) =>
        refs === undefined ||
        (Array.isArray(refs) && refs.every((ref) => typeof ref?.id === 'number' && typeof ref.name === 'string')),
    ) &&
    [model.parts, model.tools].every(
      (items) =>
        items === undefined ||
        (Array.isArray(items) &&
          items.every(
            (item) =>
              typeof item?.text === 'string' &&
              typeof item.quantity === 'string' &&
              typeof item.url === 'string' &&
              typeof item.notes === 'string' &&
              typeof item.isoptional === 'boolean' &&
              typeof item.extra === 'object' &&
              item.extra !== null,
          )),
    ) &&
    model.steps.every(
      (step) =>
        typeof step?.key === 'string' &&
        typeof step.title === 'string' &&
        Array.isArray(step.lines) &&
        step.lines.every((line) => typeof line?.text === 'string' && typeof line.level === 'number') &&
        Array.isArray(step.images),
    )
  );
}

/** A restored draft with the sections it lacks (kept before the editor had them) taken from `from`. */
export function withExtras(draft: GuideModel, from: GuideModel): GuideModel {
  return {
    ...draft,
    image: draft.image === undefined ? from.image : draft.image,
    prerequisites: draft.prerequisites ?? from.prerequisites,
    documents: draft.documents ?? from.documents,
    parts: draft.parts ?? from.parts,
    tools: draft.tools ?? from.tools,
  };
}
