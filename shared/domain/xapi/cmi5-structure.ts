/**
 * The stored shape of a cmi5 course structure (what shared/domain/xapi/cmi5-course.ts reads out of
 * cmi5.xml): its zod schemas, types and bounds. A file of its own, without the XML parser, so the
 * module-import entity, which most API bundles reach, does not load fast-xml-parser (decision 323).
 */
import * as z from 'zod/mini';

export const MOVE_ON = ['Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed', 'NotApplicable'] as const;
export const LAUNCH_METHODS = ['AnyWindow', 'OwnWindow'] as const;

/** At most this many AUs and blocks together (a bound on what one import keeps and a launch reads). */
export const MAX_CMI5_NODES = 500;

export const cmi5BlockSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  /** The enclosing block's id; null at the course's top. */
  parent: z.nullable(z.string()),
});

export const cmi5AuSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  parent: z.nullable(z.string()),
  /** As written: an absolute http(s) URL, or a path relative to the package's top (maybe with a query). */
  url: z.string(),
  move_on: z.enum(MOVE_ON),
  mastery_score: z.nullable(z.number()),
  launch_method: z.enum(LAUNCH_METHODS),
  launch_parameters: z.nullable(z.string()),
  entitlement_key: z.nullable(z.string()),
  activity_type: z.nullable(z.string()),
});

export const cmi5CourseSchema = z.object({
  course_id: z.string(),
  title: z.string(),
  description: z.string(),
  blocks: z.array(cmi5BlockSchema),
  aus: z.array(cmi5AuSchema),
});

export type Cmi5Au = z.output<typeof cmi5AuSchema>;
export type Cmi5Block = z.output<typeof cmi5BlockSchema>;
export type Cmi5Course = z.output<typeof cmi5CourseSchema>;

/** The AUs a block holds, at any depth. */
export function ausOfBlock(course: Cmi5Course, blockId: string): Cmi5Au[] {
  const inside = new Set([blockId]);
  for (const block of course.blocks) if (block.parent !== null && inside.has(block.parent)) inside.add(block.id);
  return course.aus.filter((au) => au.parent !== null && inside.has(au.parent));
}

/** The blocks enclosing an AU, innermost first. */
export function blocksAround(course: Cmi5Course, au: Cmi5Au): Cmi5Block[] {
  const byId = new Map(course.blocks.map((block) => [block.id, block]));
  const around: Cmi5Block[] = [];
  for (let at = au.parent; at !== null; ) {
    const block = byId.get(at);
    if (!block) break;
    around.push(block);
    at = block.parent;
  }
  return around;
}
