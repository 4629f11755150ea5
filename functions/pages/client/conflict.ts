/**
 * The choice shown when someone else saved first (the API's revisionid rule, 409): keep mine
 * (written over theirs), take theirs (my draft dropped), or view both side by side. Nothing is
 * written or dropped until one is chosen; the draft stays in this browser meanwhile.
 */
import { button, el } from './dom.ts';

export interface ConflictChoice {
  what: string;
  theirs: () => HTMLElement;
  mine: () => HTMLElement;
  keepMine: () => void;
  takeTheirs: () => void;
}

export function showConflict(choice: ConflictChoice): void {
  const dialog = el('dialog', { class: 'editor-dialog', 'aria-labelledby': 'conflict-title' });
  const both = el('div', { class: 'editor-both', hidden: true });
  const finish = (then: () => void) => () => {
    dialog.close();
    dialog.remove();
    then();
  };
  dialog.append(
    el('h2', { id: 'conflict-title' }, `Someone else saved this ${choice.what} first`),
    el('p', {}, 'Their changes and yours differ. Your draft is kept in this browser until you choose.'),
    el(
      'div',
      { class: 'editor-actions' },
      button('Keep mine', finish(choice.keepMine)),
      button('Take theirs', finish(choice.takeTheirs)),
      button('View both', () => {
        both.hidden = false;
        both.replaceChildren(version('Theirs', choice.theirs()), version('Mine', choice.mine()));
      }),
    ),
    both,
  );
  // Escape closes the dialog: the choice is only put off, the draft stays.
  dialog.addEventListener('cancel', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

function version(heading: string, body: HTMLElement): HTMLElement {
  return el('section', { class: 'editor-version' }, el('h3', {}, heading), body);
}
