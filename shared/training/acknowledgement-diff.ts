/**
 * The diff an acknowledgement shows: from the revision the person last completed or acknowledged
 * (base_revisionid; none: everything is new) to the release's revision, computed from the stored
 * revisions (guide snapshots and their step revisions; wiki page revisions), never from text dumps.
 */
import { getStepSnapshots, type StepRecord } from '../db/entities/step.ts';
import { getGuideSnapshot } from '../db/entities/guide-revision.ts';
import { getWikiRevision } from '../db/entities/wiki.ts';
import type { AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import { diffLines, diffSteps, type DiffStep } from '../domain/revision-diff.ts';

function diffStep(step: StepRecord): DiffStep {
  return {
    stepid: step.stepid,
    title: step.title,
    lines: step.lines.map((line) => `${'  '.repeat(line.level)}${line.text_raw}`),
    images: step.media?.type === 'image' ? step.media.data : [],
  };
}

async function guideSteps(guideid: number, revisionid: number | null): Promise<DiffStep[]> {
  if (revisionid === null) return [];
  const snapshot = await getGuideSnapshot(guideid, revisionid);
  if (!snapshot) return [];
  return (await getStepSnapshots(snapshot.steps)).map(diffStep);
}

async function wikiLines(wikiid: number, revisionid: number | null): Promise<string[]> {
  if (revisionid === null) return [];
  const revision = await getWikiRevision(wikiid, revisionid);
  return revision ? revision.contents_raw.split('\n') : [];
}

export async function acknowledgementDiff(ack: AcknowledgementRecord) {
  const from = ack.base_revisionid;
  if (ack.doctype === 'guide') {
    const [before, after] = await Promise.all([guideSteps(ack.docid, from), guideSteps(ack.docid, ack.revisionid)]);
    return { from_revisionid: from, to_revisionid: ack.revisionid, steps: diffSteps(before, after) };
  }
  const [before, after] = await Promise.all([wikiLines(ack.docid, from), wikiLines(ack.docid, ack.revisionid)]);
  return { from_revisionid: from, to_revisionid: ack.revisionid, lines: diffLines(before, after) };
}
