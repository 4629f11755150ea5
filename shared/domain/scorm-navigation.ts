/**
 * Which navigation a SCORM launch offers (issue 37, decision 325), without I/O: from the SCO being
 * delivered, where `continue` and `previous` lead and which SCOs a learner may choose, by the
 * control modes a 2004 manifest declares (SCORM 2004 4th ed. SN; control modes default to
 * choice true, flow false, forwardOnly false, choiceExit true: SN 3.2.1). SCORM 1.2 has no
 * sequencing: every SCO may be chosen and previous/next follow the organization's order.
 *
 * - `continue` (Continue Sequencing Request, SB.2.7): allowed when the current SCO's parent has
 *   flow; the Flow Tree Traversal (SB.2.1) goes to the next activity in preorder, climbing to an
 *   ancestor's next sibling, and the Flow Activity Traversal (SB.2.3) enters it only if its
 *   parent has flow, descending into a cluster's first child. Past the last activity the
 *   sequencing session ends (`end`).
 * - `previous` (SB.2.8): the same backward; refused when a parent on the way is forwardOnly; a
 *   cluster is entered at its last child (its first when it is forwardOnly itself).
 * - choice (SB.2.9): a SCO may be chosen when every activity from the root to its parent allows
 *   choice, no ancestor of the current SCO with choiceExit false would be left, and the sequencing
 *   rules allow it (hiddenFromChoice, disabled, attempt limits, stopForwardTraversal, constrained
 *   choice: shared/domain/scorm-sequencing.ts, decision 335).
 *
 * The learner's tracking state (`SequencingState`) feeds the rules: with it, flow skips what skip
 * rules skip and stops at a disabled activity or one out of attempts. What a Terminate leads to
 * (exit and post-condition rules, retry) is `Sequencer.afterTerminate`, evaluated by the commit.
 *
 * Not evaluated: availability windows (see scorm-sequencing.ts); the Next and
 * Previous offered before a Terminate are what flow allows with the state of that moment, so a
 * post-condition rule that fires at the Terminate may deliver something else (the commit says what).
 */
import { EMPTY_SEQUENCING_STATE, Sequencer, type SequencingState } from './scorm-sequencing.ts';
import { type ScormStructure, tableOfContents } from './scorm-structure.ts';

export interface ScormNavigation {
  /** The SCO `continue` delivers; null when continue is not allowed or the session ends. */
  next: string | null;
  /** `continue` ends the sequencing session (the current SCO is the last one flow reaches). */
  end: boolean;
  /** The SCO `previous` delivers; null when not allowed or at the start. */
  previous: string | null;
  /** SCOs the learner may choose from the table of contents. */
  choosable: string[];
}

/** The navigation a launch of `current` offers, with the learner's tracking state. */
export function scormNavigation(
  structure: ScormStructure,
  current: string,
  state: SequencingState = EMPTY_SEQUENCING_STATE,
): ScormNavigation {
  const leaves = tableOfContents(structure).filter((item) => item.launch);
  if (structure.edition === '1.2') {
    const index = leaves.findIndex((item) => item.identifier === current);
    return {
      next: leaves[index + 1]?.identifier ?? null,
      end: index === leaves.length - 1,
      previous: index > 0 ? leaves[index - 1]!.identifier : null,
      choosable: leaves.map((item) => item.identifier),
    };
  }
  const sequencer = new Sequencer(structure, state);
  const node = sequencer.activity(current);
  if (!node) return { next: null, end: false, previous: null, choosable: [] };
  const forward = sequencer.flow(node, true);
  const backward = sequencer.flow(node, false);
  return {
    next: 'to' in forward ? forward.to.id : null,
    end: 'end' in forward,
    previous: 'to' in backward ? backward.to.id : null,
    choosable: sequencer.choosable(current),
  };
}
