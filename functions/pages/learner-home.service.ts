/**
 * What the learner's home (`/Manage`, decision 299) shows, read for the signed-in reader: their
 * active course assignments with each stage's stored status and the due date, the training
 * modules of those courses still to play, the acknowledgements waiting for their signature, their
 * qualification levels with expiry, and, for the owner of a team, the team's matrix of members by
 * courses with what is overdue. The same records the API's training routes read; nothing here is
 * shown to anyone but the reader (and a team's rows only to its owner).
 */
import { nowSeconds } from '../../shared/clock.ts';
import { siteUrl } from '../../shared/config.ts';
import { type Caller, isAdmin } from '../../shared/domain/caller.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import {
  type AcknowledgementRecord,
  acknowledgementsPage,
  getAcknowledgement,
  userPendingCollection,
} from '../../shared/db/entities/acknowledgement.ts';
import { getCoursePages } from '../../shared/db/entities/course.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import { levelsOfUser } from '../../shared/db/entities/qualification-level.ts';
import { getSkills } from '../../shared/db/entities/skill.ts';
import { getTeam, getTeams, listMembers, listTeams, type TeamRecord } from '../../shared/db/entities/team.ts';
import { listTraineeRows, type TrainingRowRecord } from '../../shared/db/entities/training-row.ts';
import { getTrainingSettings } from '../../shared/db/entities/training-settings.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { getWiki, wikiFromItem } from '../../shared/db/entities/wiki.ts';
import { acknowledgementDiff } from '../../shared/training/acknowledgement-diff.ts';
import { managesTeam } from '../../shared/training/managers.ts';
import { mapLimit } from '../../shared/training/map-limit.ts';
import { stageDocuments } from '../../shared/training/documents.ts';
import { levelNames } from '../../shared/views/competency-views.ts';
import { guideUrl } from '../../shared/views/guide-views.ts';
import { coursePath } from '../../shared/views/course-views.ts';
import { wikiUrl } from '../../shared/domain/wiki-namespaces.ts';

/** Bounds of one home page: a learner's own lists, and a trainer's team matrix. */
export const HOME_LIMITS = { acknowledgements: 50, teams: 5, members: 50, teamChoices: 100 } as const;

export interface HomeStage {
  title: string;
  path: string;
  doctype: string;
  status: string;
}

export interface HomeCourse {
  wikiid: number;
  title: string;
  path: string;
  status: TrainingRowRecord['status'];
  completed: number;
  total: number;
  due_date: number | null;
  overdue: boolean;
  stages: HomeStage[];
}

export interface HomeAcknowledgement {
  releaseid: number;
  title: string;
  url: string | null;
  version: string;
  due_date: number;
  overdue: boolean;
}

export interface HomeLevel {
  skill: string;
  level: number;
  name: string;
  expires_at: number | null;
  expired: boolean;
}

export interface TeamMatrix {
  teamid: number;
  name: string;
  courses: Array<{ wikiid: number; title: string }>;
  members: Array<{
    userid: number;
    username: string;
    cells: Record<number, { status: TrainingRowRecord['status']; overdue: boolean; due_date: number | null }>;
    /** The member's acknowledgements past their due date (of their first 50 pending). */
    overdueAcknowledgements: number;
  }>;
  /** Courses past their due date, member by member. */
  overdue: number;
  overdueAcknowledgements: number;
  /** More members than the matrix shows. */
  truncated: boolean;
}

/** A team the reader manages whose matrix they may open (`/Manage?team=<teamid>`). */
export interface TeamChoice {
  teamid: number;
  name: string;
}

export interface LearnerHome {
  courses: HomeCourse[];
  acknowledgements: HomeAcknowledgement[];
  levels: HomeLevel[];
  teams: TeamMatrix[];
  /** Further teams the reader manages (an Admin: any team; an owner: the teams past the first five). */
  teamChoices: TeamChoice[];
  /** The team asked for with `?team=`, when one was. */
  chosenTeam?: number;
}

const isOverdue = (row: TrainingRowRecord, now: number) =>
  row.status !== 'completed' && row.due_date !== null && row.due_date < now;

/** Course titles and stages of the rows' courses, by wikiid. */
async function coursesOf(rows: TrainingRowRecord[]) {
  const pages = await getCoursePages([...new Set(rows.map((row) => row.wikiid))]);
  return new Map(pages.map((page) => [page.course.wikiid, { wiki: wikiFromItem(page.page), course: page.course }]));
}

async function myCourses(rows: TrainingRowRecord[], now: number): Promise<HomeCourse[]> {
  const courses = await coursesOf(rows);
  const documents = await stageDocuments([...courses.values()].flatMap(({ course }) => course.stages));
  const shown = rows.flatMap((row): HomeCourse[] => {
    const found = courses.get(row.wikiid);
    if (!found) return [];
    const states = new Map(row.stages.map((stage) => [stage.course_stageid, stage.status]));
    return [
      {
        wikiid: row.wikiid,
        title: found.wiki.display_title || found.wiki.title,
        path: coursePath(row.wikiid),
        status: row.status,
        completed: row.completed_stages,
        total: row.total_stages,
        due_date: row.due_date,
        overdue: isOverdue(row, now),
        stages: found.course.stages.flatMap((stage) => {
          const document = documents.get(`${stage.doctype}#${stage.docid}`);
          if (!document) return [];
          return [
            {
              title: document.title,
              path: document.url,
              doctype: stage.doctype,
              status: states.get(stage.course_stageid) ?? 'pending',
            },
          ];
        }),
      },
    ];
  });
  // What is due soonest first; undated after them, by title.
  return shown.sort(
    (a, b) =>
      (a.due_date ?? Number.MAX_SAFE_INTEGER) - (b.due_date ?? Number.MAX_SAFE_INTEGER) ||
      a.title.localeCompare(b.title),
  );
}

async function myAcknowledgements(userid: number, now: number): Promise<HomeAcknowledgement[]> {
  const acks = await acknowledgementsPage(userPendingCollection(userid), {
    limit: HOME_LIMITS.acknowledgements,
    offset: 0,
  });
  const guides = new Map(
    (await getGuides(acks.filter((ack) => ack.doctype === 'guide').map((ack) => ack.docid))).map((guide) => [
      guide.guideid,
      guide,
    ]),
  );
  const wikis = new Map(
    (
      await mapLimit(
        acks.filter((ack) => ack.doctype === 'wiki'),
        8,
        (ack) => getWiki(ack.docid),
      )
    ).flatMap((wiki) => (wiki ? [[wiki.wikiid, wiki] as const] : [])),
  );
  const site = siteUrl();
  return acks.map((ack) => {
    const guide = ack.doctype === 'guide' ? guides.get(ack.docid) : undefined;
    const wiki = ack.doctype === 'wiki' ? wikis.get(ack.docid) : undefined;
    return {
      releaseid: ack.releaseid,
      title: guide?.title ?? (wiki ? wiki.display_title || wiki.title : `${ack.doctype} ${ack.docid}`),
      url: guide ? guideUrl(site, guide) : wiki ? wikiUrl(site, wiki) : null,
      version: ack.version,
      due_date: ack.due_date,
      overdue: ack.due_date < now,
    };
  });
}

async function myLevels(userid: number, now: number): Promise<HomeLevel[]> {
  const [levels, settings] = await Promise.all([levelsOfUser(userid), getTrainingSettings({ kind: 'site' })]);
  const skills = new Map(
    (await getSkills(levels.map((level) => level.skillid))).map((skill) => [skill.skillid, skill]),
  );
  const names = levelNames(settings);
  return levels
    .filter((level) => skills.has(level.skillid))
    .map((level) => ({
      skill: skills.get(level.skillid)!.name,
      level: level.level,
      name: names[level.level] ?? String(level.level),
      expires_at: level.expires_at,
      expired: level.expires_at !== null && level.expires_at <= now,
    }))
    .sort((a, b) => a.skill.localeCompare(b.skill));
}

/** Of a member's first pending acknowledgements, how many are past their due date. */
async function overdueAcknowledgements(userid: number, now: number): Promise<number> {
  const acks = await acknowledgementsPage(userPendingCollection(userid), {
    limit: HOME_LIMITS.acknowledgements,
    offset: 0,
  });
  return acks.filter((ack) => ack.due_date < now).length;
}

/** A team's members by the courses assigned to them, each cell the row's status; what is overdue. */
async function teamMatrix(team: TeamRecord, now: number): Promise<TeamMatrix> {
  const listed = await listMembers(team.teamid, { limit: HOME_LIMITS.members + 1, offset: 0 });
  const members = listed.slice(0, HOME_LIMITS.members);
  const [rowsByMember, lateAcks, users] = await Promise.all([
    mapLimit(members, 8, (member) => listTraineeRows(member.userid)),
    mapLimit(members, 8, (member) => overdueAcknowledgements(member.userid, now)),
    getUsers(members.map((member) => member.userid)),
  ]);
  const names = new Map(users.map((user) => [user.userid, user.username]));
  const courses = await coursesOf(rowsByMember.flat());
  let overdue = 0;
  const matrixMembers = members.map((member, index) => {
    const cells: TeamMatrix['members'][number]['cells'] = {};
    for (const row of rowsByMember[index]!) {
      const late = isOverdue(row, now);
      if (late) overdue += 1;
      cells[row.wikiid] = { status: row.status, overdue: late, due_date: row.due_date };
    }
    return {
      userid: member.userid,
      username: names.get(member.userid) ?? `User ${member.userid}`,
      cells,
      overdueAcknowledgements: lateAcks[index]!,
    };
  });
  return {
    teamid: team.teamid,
    name: team.name,
    courses: [...courses.values()]
      .map(({ wiki }) => ({ wikiid: wiki.wikiid, title: wiki.display_title || wiki.title }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    members: matrixMembers,
    overdue,
    overdueAcknowledgements: lateAcks.reduce((sum, count) => sum + count, 0),
    truncated: listed.length > HOME_LIMITS.members,
  };
}

/**
 * The teams whose matrix the home shows, by the one rule of who manages a team
 * (shared/training/managers.ts: its owner and Admins): the first five the reader owns (an owner is
 * always a member: the API adds them and refuses their leaving), or the one asked for with
 * `?team=`, which the reader must manage (else the 404 page). The choices: an Admin's first 100
 * teams, an owner's owned teams past the five shown.
 */
async function managedTeams(
  caller: Caller,
  now: number,
  chosen: number | undefined,
): Promise<{ teams: TeamMatrix[]; teamChoices: TeamChoice[] }> {
  const owned = (await getTeams(caller.teams)).filter(
    (team) => team.owner === caller.userid && team.removed_date === undefined,
  );
  let shown = owned.slice(0, HOME_LIMITS.teams);
  if (chosen !== undefined) {
    const team = await getTeam(chosen);
    if (!team || !managesTeam(caller, team)) throw new NotFoundError(`No team you manage with teamid ${chosen}`);
    shown = [team];
  }
  const listed = isAdmin(caller) ? await listTeams({ limit: HOME_LIMITS.teamChoices, offset: 0 }) : owned;
  // The team shown is always among the choices, whether or not the list's first page holds it.
  const choices = [...shown.filter((team) => !listed.some((known) => known.teamid === team.teamid)), ...listed];
  return {
    teams: await mapLimit(shown, 2, (team) => teamMatrix(team, now)),
    teamChoices:
      choices.length > shown.length || chosen !== undefined
        ? choices.map((team) => ({ teamid: team.teamid, name: team.name }))
        : [],
  };
}

/** One acknowledgement of the reader's, with what changed since the release they last signed. */
export interface AcknowledgementReview {
  releaseid: number;
  title: string;
  url: string | null;
  version: string;
  base_version: string | null;
  status: AcknowledgementRecord['status'];
  signed_date: number | null;
  due_date: number;
  overdue: boolean;
  diff: Awaited<ReturnType<typeof acknowledgementDiff>>;
}

/**
 * The reader's own acknowledgement of a release and its diff (what GET /acknowledgements/{releaseid}
 * answers them): from the revision they last completed or signed to the release's. Another
 * person's, or none: not found.
 */
export async function acknowledgementReview(caller: Caller, releaseid: number): Promise<AcknowledgementReview> {
  const ack = await getAcknowledgement(releaseid, caller.userid);
  if (!ack) throw new NotFoundError(`You were not asked to acknowledge release ${releaseid}`);
  const site = siteUrl();
  const [diff, guide, wiki] = await Promise.all([
    acknowledgementDiff(ack),
    ack.doctype === 'guide' ? getGuides([ack.docid]).then((found) => found[0]) : undefined,
    ack.doctype === 'wiki' ? getWiki(ack.docid) : undefined,
  ]);
  return {
    releaseid,
    title: guide?.title ?? (wiki ? wiki.display_title || wiki.title : `${ack.doctype} ${ack.docid}`),
    url: guide ? guideUrl(site, guide) : wiki ? wikiUrl(site, wiki) : null,
    version: ack.version,
    base_version: ack.base_version,
    status: ack.status,
    signed_date: ack.signed_date,
    due_date: ack.due_date,
    overdue: ack.status === 'pending' && ack.due_date < nowSeconds(),
    diff,
  };
}

export async function learnerHome(caller: Caller, chosenTeam?: number): Promise<LearnerHome> {
  const now = nowSeconds();
  const [rows, acknowledgements, levels, { teams, teamChoices }] = await Promise.all([
    listTraineeRows(caller.userid),
    myAcknowledgements(caller.userid, now),
    myLevels(caller.userid, now),
    managedTeams(caller, now, chosenTeam),
  ]);
  return {
    courses: await myCourses(rows, now),
    acknowledgements,
    levels,
    teams,
    teamChoices,
    ...(chosenTeam === undefined ? {} : { chosenTeam }),
  };
}
