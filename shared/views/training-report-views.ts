import * as z from 'zod/mini';
import { assigneeRowSchema, progressSchema, stageEntrySchema } from './course-assignment-views.ts';

const id = z.int();
const nullableId = z.nullable(z.int());
const timestamp = z.int();

/** A trainee's course in the reports: the assignee row plus the course and where it came from. */
export const courseRowReportSchema = z.object({
  ...assigneeRowSchema.shape,
  wikiid: id,
  course_title: z.nullable(z.string()),
  source: z.enum(['user', 'team']),
});

export const userReportSchema = z.object({
  userid: id,
  username: z.string(),
  progress: progressSchema,
  courses: z.array(courseRowReportSchema),
});
export const teamUserReportSchema = z.object({ teamid: id, ...userReportSchema.shape });

export const teamReportSchema = z.object({
  teamid: id,
  name: z.string(),
  member_count: z.int(),
  progress: progressSchema,
  assignments: z.array(
    z.object({
      course_assignmentid: id,
      wikiid: id,
      course_title: z.nullable(z.string()),
      due_within: z.nullable(z.int()),
      created_date: timestamp,
      due_date: z.nullable(timestamp),
      progress: progressSchema,
    }),
  ),
});

export const courseReportSchema = z.object({
  wikiid: id,
  title: z.string(),
  stage_count: z.int(),
  assignee_count: z.int(),
  progress: progressSchema,
  assignments: z.array(
    z.object({
      course_assignmentid: id,
      assignee_userid: nullableId,
      assignee_teamid: nullableId,
      assignee_name: z.string(),
      due_within: z.nullable(z.int()),
      created_date: timestamp,
      progress: progressSchema,
    }),
  ),
});

export const courseUserReportSchema = z.object({
  wikiid: id,
  userid: id,
  username: z.string(),
  assigned: z.boolean(),
  courses: z.array(courseRowReportSchema),
  stages: z.array(stageEntrySchema),
});

export const userSummaryReportSchema = z.object({
  userid: id,
  username: z.nullable(z.string()),
  ...progressSchema.shape,
});
export const teamSummaryReportSchema = z.object({
  teamid: id,
  name: z.nullable(z.string()),
  member_count: z.optional(z.int()),
  ...progressSchema.shape,
});

export type CourseRowReportView = z.output<typeof courseRowReportSchema>;
export type UserReportView = z.output<typeof userReportSchema>;
export type TeamReportView = z.output<typeof teamReportSchema>;
export type CourseReportView = z.output<typeof courseReportSchema>;
export type CourseUserReportView = z.output<typeof courseUserReportSchema>;
export type UserSummaryReportView = z.output<typeof userSummaryReportSchema>;
export type TeamSummaryReportView = z.output<typeof teamSummaryReportSchema>;
