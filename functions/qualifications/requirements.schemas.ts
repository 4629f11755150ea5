/** Request schemas of required skills and the gap report (docs/competency.md "Requirements and gaps"). */
import * as z from 'zod/mini';
import { pagination } from '../../shared/http/query.ts';
import { MAX_LEVEL } from '../../shared/domain/competency.ts';
import { REQUIREMENT_ROLES } from '../../shared/db/entities/skill-requirement.ts';

const id = z.int().check(z.positive());
const optionalId = z.optional(
  z.pipe(
    z.string().check(z.regex(/^\d{1,15}$/)),
    z.pipe(
      z.transform((value: string) => Number.parseInt(value, 10)),
      z.number().check(z.minimum(1)),
    ),
  ),
);

/** A team or role requires at most this many skills (one transaction replaces them with the audit). */
export const MAX_REQUIREMENTS = 40;

export const requirementsBody = z.object({
  requirements: z
    .array(z.object({ skillid: id, level: z.int().check(z.minimum(1), z.maximum(MAX_LEVEL)) }))
    .check(z.maxLength(MAX_REQUIREMENTS)),
});
export type RequirementsInput = z.output<typeof requirementsBody>;

/** A role's name: Admin, Author or User (another is a 404 from the service). */
export const roleParams = z.object({ role: z.string() });

export function requirementRole(role: string): (typeof REQUIREMENT_ROLES)[number] | null {
  return (REQUIREMENT_ROLES as readonly string[]).includes(role) ? (role as (typeof REQUIREMENT_ROLES)[number]) : null;
}

/** The lead window's default: levels lapsing within 30 days are `expiring`. */
export const DEFAULT_LEAD_DAYS = 30;

export const gapsQuery = z.object({
  teamid: optionalId,
  skillid: optionalId,
  lead_days: z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d{1,3}$/)),
      z.pipe(
        z.transform((value: string) => Number.parseInt(value, 10)),
        z.number().check(z.maximum(365)),
      ),
    ),
  ),
  format: z.optional(z.enum(['json', 'csv'])),
  ...pagination,
});
export type GapsQuery = z.output<typeof gapsQuery>;
