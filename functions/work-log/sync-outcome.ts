/** The result of one journal action (docs/offline.md): its status and, when not done, why. */
import type { SyncActionType } from './sync.schemas.ts';

export type SyncStatus =
  | 'applied'
  | 'already_applied'
  | 'pending'
  | 'conflict'
  | 'rejected'
  | 'skipped'
  | 'not_applied';

/** Why an action was not applied as the device did it (docs/offline.md lists each). */
export type ConflictReason =
  | 'new_release'
  | 'access_lost'
  | 'not_found'
  | 'state_changed'
  | 'invalid'
  | 'unknown_entry'
  | 'depends_on_failed'
  | 'guid_reused'
  | 'qualification'
  | 'quiz_locked'
  | 'time_budget'
  | 'server_error';

export interface SyncResult {
  client_guid: string;
  type: SyncActionType;
  status: SyncStatus;
  /** The status the same request alone would have answered. */
  http_status: number;
  entryid?: number;
  /** The record a comment, quiz or signoff action made (or found made). */
  commentid?: number;
  quiz_sessionid?: number;
  signoff_requestid?: number;
  conflict?: { reason: ConflictReason; message: string; current?: unknown };
  device_time: number;
  server_time: number;
}

/** Not applied because of the journal itself (an unknown entry, a reused guid): `skipped`. */
export class Skip extends Error {
  constructor(
    readonly reason: ConflictReason,
    message: string,
  ) {
    super(message);
  }
}

/** Not applied because the world changed meanwhile: `conflict`, with the record as it is. */
export class SyncConflict extends Error {
  constructor(
    readonly reason: ConflictReason,
    message: string,
    readonly current?: unknown,
    /** What the route alone would have answered. */
    readonly httpStatus = 409,
  ) {
    super(message);
  }
}

/** What an action's own code answers: the rest of its result is filled in by the journal. */
export type Outcome = Omit<SyncResult, 'client_guid' | 'type' | 'device_time' | 'server_time'>;
