/**
 * Gathers the facts the stage rule needs (shared/domain/stage-status.ts) for a set of trainees
 * on a set of stages, in batches, and asks the rule. This is the only way a stage's
 * {status, reason} is decided: stored rows, assignment records and reports all come from here.
 *
 * Facts: the stage's rule; the document's latest release; the trainee's last completion of the
 * document (with the release current when it was completed); the trainee's signoff on the
 * stage's assessment; the quiz state (quizStateFor, quizzes' contract); the release the trainee
 * last acknowledged and the newest one marked as needing retraining (acknowledgement-facts.ts); the time.
 */
import { nowSeconds } from '../clock.ts';
import { getCompletions, docKeyOf, type CompletionRecord, type DocRef } from '../db/entities/training-record.ts';
import { getTraineeSignoffs, type TraineeSignoffRecord } from '../db/entities/signoff.ts';
import type { CourseStageRecord } from '../db/entities/course.ts';
import {
  stageStatus,
  type CompletionFacts,
  type QuizState,
  type SignoffState,
  type StageRule,
} from '../domain/stage-status.ts';
import { latestReleases } from './documents.ts';
import { acknowledgementFacts } from './acknowledgement-facts.ts';
import { quizStateFor } from './quiz-state.ts';
import { mapLimit } from './map-limit.ts';
import type { StageOutcome } from '../views/course-views.ts';

export type { StageOutcome };

type QuizFacts = { required: boolean; state: QuizState };

const docOf = (stage: CourseStageRecord): DocRef => ({ doctype: stage.doctype, docid: stage.docid });

/**
 * The signoff fact. An acknowledged answer covers the attempt it was given for: once the
 * trainee starts the document again after it (a new completion), the stage needs a new signoff.
 */
export function signoffFact(
  record: TraineeSignoffRecord | undefined,
  completion: CompletionRecord | null,
): SignoffState {
  if (!record) return 'none';
  switch (record.state) {
    case 'requested':
      return 'requested';
    case 'responded':
      return 'responded';
    case 'cancelled':
      return 'none';
    case 'acknowledged':
      if (completion && record.acknowledged_date !== null && completion.init_date > record.acknowledged_date)
        return 'none';
      return record.approved ? 'acknowledged' : 'rejected';
  }
}

export function completionFacts(completion: CompletionRecord | null): CompletionFacts | null {
  if (!completion) return null;
  return {
    init_date: completion.init_date,
    end_date: completion.end_date,
    manager_override_userid: completion.manager_override_userid,
    release:
      completion.release_major === null
        ? null
        : { major: completion.release_major, minor: completion.release_minor ?? 0 },
    invalidated_at: completion.invalidated_at,
  };
}

/**
 * Quiz facts per (user, document). A document without an enabled quiz answers
 * {required: false, state: not_started} for everyone (quizStateFor's contract), so one call per
 * such document is enough; documents with a quiz are asked per trainee.
 */
async function quizFacts(userids: number[], docs: DocRef[]): Promise<Map<string, QuizFacts>> {
  const facts = new Map<string, QuizFacts>();
  const quizDocs = docs.filter(
    (doc): doc is DocRef & { doctype: 'guide' | 'wiki' } => doc.doctype !== 'external_training_module',
  );
  await mapLimit(quizDocs, 8, async (doc) => {
    if (userids.length === 0) return;
    const first = await quizStateFor(userids[0], doc.doctype, doc.docid);
    facts.set(`${userids[0]}|${docKeyOf(doc)}`, first);
    if (!first.required) {
      for (const userid of userids) facts.set(`${userid}|${docKeyOf(doc)}`, first);
      return;
    }
    await mapLimit(userids.slice(1), 16, async (userid) =>
      facts.set(`${userid}|${docKeyOf(doc)}`, await quizStateFor(userid, doc.doctype, doc.docid)),
    );
  });
  return facts;
}

/** Every trainee's outcome on every stage, in stage order. */
export async function stageOutcomes(
  userids: number[],
  stages: CourseStageRecord[],
  now = nowSeconds(),
): Promise<Map<number, StageOutcome[]>> {
  const docs = [...new Map(stages.map((stage) => [docKeyOf(docOf(stage)), docOf(stage)])).values()];
  const assessments = stages.map((stage) => stage.stage_assessmentid).filter((id): id is number => id !== null);
  const [releases, completions, signoffs, quizzes, acks] = await Promise.all([
    latestReleases(docs),
    getCompletions(userids.flatMap((userid) => docs.map((doc) => ({ userid, doc })))),
    assessments.length
      ? getTraineeSignoffs(
          userids.flatMap((userid) => assessments.map((stage_assessmentid) => ({ userid, stage_assessmentid }))),
        )
      : Promise.resolve([]),
    quizFacts(userids, docs),
    acknowledgementFacts(userids, docs),
  ]);
  const completionOf = new Map(
    completions.map((completion) => [`${completion.userid}|${docKeyOf(completion)}`, completion]),
  );
  const signoffOf = new Map(signoffs.map((signoff) => [`${signoff.userid}|${signoff.stage_assessmentid}`, signoff]));
  const ordered = [...stages].sort((a, b) => a.orderby - b.orderby);
  return new Map(
    userids.map((userid) => [
      userid,
      ordered.map((stage) => {
        const key = docKeyOf(docOf(stage));
        const completion = completionOf.get(`${userid}|${key}`) ?? null;
        const quiz = quizzes.get(`${userid}|${key}`) ?? { required: false, state: 'not_started' as const };
        const rule: StageRule = {
          strictness: stage.strictness,
          frequency_quantity: stage.frequency_quantity,
          frequency_unit: stage.frequency_unit,
          requires_signoff: stage.stage_assessmentid !== null,
          requires_quiz: quiz.required,
        };
        const signoff =
          stage.stage_assessmentid === null
            ? 'none'
            : signoffFact(signoffOf.get(`${userid}|${stage.stage_assessmentid}`), completion);
        const state = stageStatus({
          rule,
          latestRelease: releases.get(key) ?? null,
          completion: completionFacts(completion),
          signoff,
          quiz: quiz.state,
          now,
          acknowledged: acks.acknowledged.get(`${userid}|${key}`) ?? null,
          retraining: acks.retraining.get(key) ?? null,
        });
        return { stage, state, completion };
      }),
    ]),
  );
}
