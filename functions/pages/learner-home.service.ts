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
import type { Caller } from '../../shared/domain/caller.ts';
import { acknowledgementsPage, userPendingCollection } from '../../shared/db/entities/acknowledgement.ts';
import { getCoursePages } from '../../shared/db/entities/course.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import { levelsOfUser } from '../../shared/db/entities/qualification-level.ts';
import { getSkills } from '../../shared/db/entities/skill.ts';
import { getTeams, listMembers } from '../../shared/db/entities/team.ts';
import { listTraineeRows, type TrainingRowRecord } from '../../shared/db/entities/training-row.ts';
import { getTrainingSettings } from '../../shared/db/entities/training-settings.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { getWiki, wikiFromItem } from '../../shared/db/entities/wiki.ts';
import { mapLimit } from '../../shared/training/map-limit.ts';
import { stageDocuments } from '../../shared/training/documents.ts';
import { levelNames } from '../../shared/views/competency-views.ts';
import { guideUrl } from '../../shared/views/guide-views.ts';
import { coursePath } from '../../shared/views/course-views.ts';
import { wikiUrl } from '../../shared/views/wiki-views.ts';

/** Bounds of one home page: a learner's own lists, and a trainer's team matrix. */
export const HOME_LIMITS = { acknowledgements: 50, teams: 5, members: 50 } as const;

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
  }>;
  overdue: number;
}

export interface LearnerHome {
  courses: HomeCourse[];
  acknowledgements: HomeAcknowledgement[];
  levels: HomeLevel[];
  teams: TeamMatrix[];
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

/** The teams the reader owns (of those they are in): members by courses, each cell the row's status. */
async function ownedTeams(caller: Caller, now: number): Promise<TeamMatrix[]> {
  const owned = (await getTeams(caller.teams)).filter((team) => team.owner === caller.userid);
  return mapLimit(owned.slice(0, HOME_LIMITS.teams), 2, async (team) => {
    const members = await listMembers(team.teamid, { limit: HOME_LIMITS.members, offset: 0 });
    const [rowsByMember, users] = await Promise.all([
      mapLimit(members, 8, (member) => listTraineeRows(member.userid)),
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
      return { userid: member.userid, username: names.get(member.userid) ?? `User ${member.userid}`, cells };
    });
    return {
      teamid: team.teamid,
      name: team.name,
      courses: [...courses.values()]
        .map(({ wiki }) => ({ wikiid: wiki.wikiid, title: wiki.display_title || wiki.title }))
        .sort((a, b) => a.title.localeCompare(b.title)),
      members: matrixMembers,
      overdue,
    };
  });
}

export async function learnerHome(caller: Caller): Promise<LearnerHome> {
  const now = nowSeconds();
  const [rows, acknowledgements, levels, teams] = await Promise.all([
    listTraineeRows(caller.userid),
    myAcknowledgements(caller.userid, now),
    myLevels(caller.userid, now),
    ownedTeams(caller, now),
  ]);
  return { courses: await myCourses(rows, now), acknowledgements, levels, teams };
}
