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
 * - choice (SB.2.9, simplified to the static checks): a SCO may be chosen when every activity
 *   from the root to its parent allows choice, and no ancestor of the current SCO with
 *   choiceExit false would be left.
 *
 * Not evaluated: sequencing rules (skip, disabled, hiddenFromChoice, stop forward traversal),
 * limit conditions and constrained choice; a Previous that would need them is still offered.
 */
import { type ScormItem, type ScormStructure, tableOfContents } from './scorm-structure.ts';

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

interface Node {
  item: ScormItem | null;
  parent: Node | null;
  children: Node[];
  mode: { choice: boolean; choice_exit: boolean; flow: boolean; forward_only: boolean };
}

const DEFAULT_MODE = { choice: true, choice_exit: true, flow: false, forward_only: false };

function tree(structure: ScormStructure): { root: Node; byId: Map<string, Node> } {
  const organization = structure.organizations.find((entry) => entry.identifier === structure.default_organization);
  const root: Node = {
    item: null,
    parent: null,
    children: [],
    mode: organization?.sequencing?.control_mode ?? DEFAULT_MODE,
  };
  const byId = new Map<string, Node>();
  for (const item of tableOfContents(structure)) {
    const parent = item.parent === null ? root : byId.get(item.parent);
    if (!parent) continue;
    const node: Node = { item, parent, children: [], mode: item.sequencing?.control_mode ?? DEFAULT_MODE };
    parent.children.push(node);
    byId.set(item.identifier, node);
  }
  return { root, byId };
}

const launchable = (node: Node) => node.children.length === 0 && node.item?.launch != null;

/** Flow Activity Traversal (SB.2.3): the leaf delivered when flow enters `node`, or null. */
function enter(node: Node, forward: boolean): Node | null {
  if (!node.parent?.mode.flow) return null;
  if (node.children.length === 0) return launchable(node) ? node : null;
  const first = forward || node.mode.forward_only;
  return enter(first ? node.children[0]! : node.children[node.children.length - 1]!, forward);
}

/** Flow Tree Traversal (SB.2.1) from a leaf: the next activity in the direction, or 'end' past the last. */
function traverse(from: Node, forward: boolean): Node | 'end' | null {
  let node = from;
  for (;;) {
    const parent = node.parent;
    if (!parent) return forward ? 'end' : null;
    if (!forward && parent.mode.forward_only) return null;
    const siblings = parent.children;
    const index = siblings.indexOf(node) + (forward ? 1 : -1);
    if (index >= 0 && index < siblings.length) return siblings[index]!;
    node = parent;
  }
}

function flow(current: Node, forward: boolean): { to: string | null; end: boolean } {
  if (!current.parent?.mode.flow) return { to: null, end: false };
  const next = traverse(current, forward);
  if (next === 'end') return { to: null, end: true };
  const leaf = next ? enter(next, forward) : null;
  return { to: leaf?.item?.identifier ?? null, end: false };
}

function ancestors(node: Node): Node[] {
  const out: Node[] = [];
  for (let at = node.parent; at; at = at.parent) out.push(at);
  return out;
}

/** The navigation a launch of `current` offers. */
export function scormNavigation(structure: ScormStructure, current: string): ScormNavigation {
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
  const { byId } = tree(structure);
  const node = byId.get(current);
  if (!node) return { next: null, end: false, previous: null, choosable: [] };
  const forward = flow(node, true);
  const backward = flow(node, false);
  // choiceExit false on an ancestor of the current SCO: choice may not leave that ancestor's subtree.
  const fences = ancestors(node).filter((ancestor) => ancestor.item && !ancestor.mode.choice_exit);
  const choosable = leaves
    .map((item) => byId.get(item.identifier))
    .filter((target): target is Node => target !== undefined && launchable(target))
    .filter((target) => {
      const above = ancestors(target);
      return above.every((ancestor) => ancestor.mode.choice) && fences.every((fence) => above.includes(fence));
    })
    .map((target) => target.item!.identifier);
  return { next: forward.to, end: forward.end, previous: backward.to, choosable };
}
