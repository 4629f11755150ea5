/** Request schemas of the work-log routes that work-log.service.ts takes as they are. */
import * as z from 'zod/mini';
import { pagination, queryInt } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

export const workLogListQuery = z.object({
  ...pagination,
  guideid: queryInt,
  userid: queryInt,
  workorderid: z.optional(z.string().check(z.trim(), z.minLength(1))),
  /** The entry the user (`userid`, else the caller) made under this client guid (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});

export const stepDataBody = z.object({
  fields: z.optional(z.record(z.string(), z.unknown())),
  lasttimingid: z.optional(z.nullable(z.int().check(z.minimum(0)))),
  stepid: z.optional(z.int().check(z.positive())),
  /** This save, named by the device: sent again, it is not applied twice (decision 224). */
  client_guid: z.optional(clientGuidSchema),
});

export type WorkLogListQuery = z.output<typeof workLogListQuery>;
export type StepDataInput = z.output<typeof stepDataBody>;
