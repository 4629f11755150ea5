/**
 * Drafts kept in this browser (localStorage) while someone edits: every change is written at
 * once, so a reload, a closed tab or a lost connection loses nothing typed. A draft names the
 * revision it was made from; saving it over a newer one is the API's 409, shown as a choice.
 */

export interface Draft<T> {
  model: T;
  /** The guide's revisionid the draft started from (undefined for a guide not created yet). */
  baseRevision: number | undefined;
  savedAt: number;
}

const PREFIX = 'stepwise-draft:';

export function draftKey(kind: string, id: string): string {
  return `${PREFIX}${kind}:${id}`;
}

export function readDraft<T>(key: string, valid: (model: unknown) => model is T): Draft<T> | undefined {
  try {
    const text = globalThis.localStorage?.getItem(key);
    if (!text) return undefined;
    const draft = JSON.parse(text) as Partial<Draft<unknown>>;
    // Written by this script, but read as untrusted: another version or a hand edit may differ.
    if (!draft || typeof draft.savedAt !== 'number' || !valid(draft.model)) return undefined;
    const baseRevision = typeof draft.baseRevision === 'number' ? draft.baseRevision : undefined;
    return { model: draft.model, baseRevision, savedAt: draft.savedAt };
  } catch {
    return undefined;
  }
}

export function writeDraft<T>(key: string, model: T, baseRevision: number | undefined): void {
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify({ model, baseRevision, savedAt: Date.now() }));
  } catch {
    // Storage full or disabled: the editor still works, without the safety net.
  }
}

export function dropDraft(key: string): void {
  try {
    globalThis.localStorage?.removeItem(key);
  } catch {
    // nothing kept, nothing to drop
  }
}
