/**
 * `client_guid` on the training creates (decision 224): a signoff request and a quiz submission
 * sent twice make one; a resent submit never counts a second attempt.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, createUser } from '../support/api.ts';
import { assignedTrainee, createTeam } from '../support/courses.ts';
import { ALL_WRONG, HALF_RIGHT, importQuiz } from './quiz-fixtures.ts';

describe('client_guid on signoff requests', () => {
  it('makes one request: 201, then 200 with it for the same body, 409 for another', async () => {
    const signer = await createUser();
    const team = await createTeam({ owner: signer.userid });
    const { trainee, course } = await assignedTrainee({ assessment: { teamid: team.teamid } });
    const stage_assessmentid = course.stages[0].stage_assessmentid as number;
    const client_guid = randomUUID();
    const send = (comments: string) =>
      api('POST', '/stage-sign-offs/requests', {
        token: trainee.token,
        body: { stage_assessmentid, comments, client_guid },
      });
    const first = await send('Ready');
    expect(first.status).toBe(201);
    const again = await send('Ready');
    expect(again.status).toBe(200);
    expect(again.body.signoff_requestid).toBe(first.body.signoff_requestid);
    const other = await send('Ready now');
    expect(other.status).toBe(409);
    expect(other.body.signoff_requestid).toBe(first.body.signoff_requestid);
  });
});

describe('client_guid on quiz submissions', () => {
  it('counts one attempt however often the submit is sent', async () => {
    const { quizid } = await importQuiz({ pass_threshold: 75, max_attempts: 3 });
    const user = await createUser();
    const client_guid = randomUUID();
    const submit = (response_json: unknown, guid = client_guid) =>
      api('POST', '/quizzes/sessions/submit', {
        token: user.token,
        body: { quizid, response_json, client_guid: guid },
      });
    const first = await submit(HALF_RIGHT);
    expect(first.status).toBe(200);
    expect(first.body.attempts_used).toBe(1);
    const again = await submit(HALF_RIGHT);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ attempts_used: 1, quiz_sessionid: first.body.quiz_sessionid });
    const other = await submit(ALL_WRONG);
    expect(other.status).toBe(409);
    const next = await submit(ALL_WRONG, randomUUID());
    expect(next.body.attempts_used).toBe(2);
  });
});
