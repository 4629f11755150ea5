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
