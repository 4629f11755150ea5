/**
 * What changed between two stored revisions of a document, for an acknowledgement
 * (docs/competency.md): steps added, removed, moved and changed (matched by stepid), each
 * changed step with its line-level differences and changed images; a wiki page's text line by
 * line. Pure: the caller reads the two revisions' steps.
 */

export interface DiffStep {
  stepid: number;
  title: string;
  lines: string[];
  /** Image ids (media) of the step, in order. */
  images: number[];
}

export type LineChange = { op: 'same' | 'added' | 'removed'; text: string };

export interface StepChange {
  stepid: number;
  title: string;
  /** `changed`: title, lines or images differ (and possibly moved); `moved`: same content, new place. */
  change: 'added' | 'removed' | 'moved' | 'changed';
  old_position: number | null;
  new_position: number | null;
  title_before?: string;
  lines?: LineChange[];
  images_added?: number[];
  images_removed?: number[];
}

/** Above this many lines on a side the LCS table is not built: the lines are shown removed and added. */
const MAX_LCS_CELLS = 4_000_000;

/** A line diff by longest common subsequence: unchanged lines `same`, the rest removed then added. */
export function diffLines(before: string[], after: string[]): LineChange[] {
  if (before.length * after.length > MAX_LCS_CELLS) {
    return [
      ...before.map((text) => ({ op: 'removed' as const, text })),
      ...after.map((text) => ({ op: 'added' as const, text })),
    ];
  }
  const n = before.length;
  const m = after.length;
  // lcs[i][j]: the LCS length of before[i..] and after[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      out.push({ op: 'same', text: before[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: 'removed', text: before[i++] });
    else out.push({ op: 'added', text: after[j++] });
  }
  while (i < n) out.push({ op: 'removed', text: before[i++] });
  while (j < m) out.push({ op: 'added', text: after[j++] });
  return out;
}

/**
 * Steps matched by stepid. A kept step is `moved` when its place among the kept steps changed
 * (inserting or removing others does not move it), `changed` when its content differs.
 */
export function diffSteps(before: DiffStep[], after: DiffStep[]): StepChange[] {
  const oldById = new Map(before.map((step, index) => [step.stepid, { step, index }]));
  const newIds = new Set(after.map((step) => step.stepid));
  const keptOld = before.filter((step) => newIds.has(step.stepid)).map((step) => step.stepid);
  const keptNew = after.filter((step) => oldById.has(step.stepid)).map((step) => step.stepid);
  const changes: StepChange[] = [];
  after.forEach((step, index) => {
    const old = oldById.get(step.stepid);
    if (!old) {
      changes.push({
        stepid: step.stepid,
        title: step.title,
        change: 'added',
        old_position: null,
        new_position: index + 1,
        lines: step.lines.map((text) => ({ op: 'added', text })),
        images_added: step.images,
        images_removed: [],
      });
      return;
    }
    const moved = keptOld.indexOf(step.stepid) !== keptNew.indexOf(step.stepid);
    const oldImages = new Set(old.step.images);
    const newImages = new Set(step.images);
    const imagesAdded = step.images.filter((image) => !oldImages.has(image));
    const imagesRemoved = old.step.images.filter((image) => !newImages.has(image));
    const lines = diffLines(old.step.lines, step.lines);
    const contentChanged =
      old.step.title !== step.title ||
      lines.some((line) => line.op !== 'same') ||
      imagesAdded.length > 0 ||
      imagesRemoved.length > 0 ||
      old.step.images.join(',') !== step.images.join(',');
    if (!contentChanged && !moved) return;
    changes.push({
      stepid: step.stepid,
      title: step.title,
      change: contentChanged ? 'changed' : 'moved',
      old_position: old.index + 1,
      new_position: index + 1,
      ...(contentChanged
        ? {
            ...(old.step.title !== step.title ? { title_before: old.step.title } : {}),
            lines,
            images_added: imagesAdded,
            images_removed: imagesRemoved,
          }
        : {}),
    });
  });
  before.forEach((step, index) => {
    if (newIds.has(step.stepid)) return;
    changes.push({
      stepid: step.stepid,
      title: step.title,
      change: 'removed',
      old_position: index + 1,
      new_position: null,
      lines: step.lines.map((text) => ({ op: 'removed', text })),
      images_added: [],
      images_removed: step.images,
    });
  });
  return changes;
}
