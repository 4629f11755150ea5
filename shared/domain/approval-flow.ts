/**
 * The approval state machine, with no I/O. A request copies its process's stages (1 to 10,
 * each an approver team and a quorum) when it is made and starts at stage 1. Members of the
 * current stage's team sign; when `quorum` of them have approved, the request moves to the next
 * stage, and after the last stage it is approved. One rejection ends it. A new revision of the
 * document supersedes it (the signatures were for the old content). Table: docs/compliance.md.
 */

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'superseded'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const SIGNATURE_MEANINGS = ['approve', 'reject', 'review'] as const;
export type SignatureMeaning = (typeof SIGNATURE_MEANINGS)[number];
export type ApprovalMeaning = Extract<SignatureMeaning, 'approve' | 'reject'>;

export const MAX_APPROVAL_STAGES = 10;

export interface StageRule {
  name: string;
  teamid: number;
  quorum: number;
}

export interface StageSignature {
  /** 1-based stage the signature was given in. */
  stage: number;
  userid: number;
  meaning: ApprovalMeaning;
}

export interface ApprovalState {
  status: ApprovalStatus;
  /** 1-based stage awaiting signatures; null once the request has ended. */
  current_stage: number | null;
}

export type StageProgress = 'waiting' | 'pending' | 'approved' | 'rejected' | 'skipped';

/** Approvals given in one stage. */
export function approvalsIn(signatures: StageSignature[], stage: number): number {
  return signatures.filter((signature) => signature.stage === stage && signature.meaning === 'approve').length;
}

/** The state after `signature` was added to a pending request at `state.current_stage`. */
export function afterSignature(
  stages: StageRule[],
  state: ApprovalState,
  signatures: StageSignature[],
  signature: StageSignature,
): ApprovalState {
  if (state.status !== 'pending' || state.current_stage === null)
    throw new Error('Only a pending request takes signatures');
  if (signature.stage !== state.current_stage) throw new Error('A signature belongs to the current stage');
  if (signature.meaning === 'reject') return { status: 'rejected', current_stage: null };
  const stage = state.current_stage;
  if (approvalsIn([...signatures, signature], stage) < stages[stage - 1].quorum) return state;
  return stage === stages.length
    ? { status: 'approved', current_stage: null }
    : { status: 'pending', current_stage: stage + 1 };
}

/** How far each stage got, for the request view. */
export function stageProgress(
  stages: StageRule[],
  state: ApprovalState,
  signatures: StageSignature[],
): StageProgress[] {
  const rejectedIn = signatures.find((signature) => signature.meaning === 'reject')?.stage;
  return stages.map((rule, index) => {
    const stage = index + 1;
    if (rejectedIn === stage) return 'rejected';
    if (approvalsIn(signatures, stage) >= rule.quorum) return 'approved';
    if (state.status === 'pending' && state.current_stage === stage) return 'pending';
    if (state.status === 'pending' && state.current_stage !== null && stage > state.current_stage) return 'waiting';
    // Ended (rejected earlier, or superseded) before this stage was decided.
    return 'skipped';
  });
}

/**
 * Why `signer` may not sign a pending request now (undefined: they may): they signed it
 * already, or they are not in the current stage's team. One rule for the signing routes and
 * the over-the-shoulder sign-in at the identity provider.
 */
export function signingRefusal(
  request: { stages: StageRule[]; current_stage: number | null; signer_userids: number[] },
  signer: { userid: number; username: string; teams: number[] },
): string | undefined {
  if (request.signer_userids.includes(signer.userid)) return `${signer.username} has already signed this request`;
  if (request.current_stage === null) return 'This request is no longer pending';
  const stage = request.stages[request.current_stage - 1]!;
  if (!signer.teams.includes(stage.teamid))
    return `Stage ${request.current_stage} (${stage.name}) is signed by members of team ${stage.teamid}`;
  return undefined;
}
