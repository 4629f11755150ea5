/**
 * The body fields a write drops, named by path (decisions 315, 332): top-level names as before,
 * nested ones inside declared objects, array items and the union option that accepts the value;
 * nothing inside loose objects; bounded in count and depth.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { createGuideBody } from '../../functions/guides/guides.schemas.ts';
import { ignoredFields } from '../../shared/http/validation.ts';

const step = z.object({
  title: z.string(),
  lines: z.array(z.object({ text: z.string(), level: z.optional(z.int()) })),
  media: z.optional(
    z.nullable(
      z.union([
        z.object({ type: z.literal('image'), data: z.array(z.int()) }),
        z.object({ type: z.literal('video'), data: z.int() }),
      ]),
    ),
  ),
  extra: z.optional(z.looseObject({ kept: z.string() })),
});
const body = z.object({ title: z.optional(z.string()), steps: z.optional(z.array(step)) });

describe('ignoredFields', () => {
  it('names top-level and nested unknown fields by path', () => {
    expect(
      ignoredFields(body, {
        title: 'x',
        time_required: '1 hour',
        steps: [
          { title: 'a', lines: [{ text: 'l', colour: 'red' }], foo: 1 },
          { title: 'b', lines: [], media: { type: 'video', data: 3, poster: 'p' }, extra: { kept: 'k', any: 1 } },
        ],
      }),
    ).toEqual(['time_required', 'steps[0].lines[0].colour', 'steps[0].foo', 'steps[1].media.poster']);
  });

  it("names a guide's unknown part fields as the route's schema reads them", () => {
    expect(
      ignoredFields(createGuideBody, {
        category: 'c',
        type: 'how-to',
        parts: [{ text: 'Hex key', colour: 'red' }],
        time_required: '1 hour',
      }),
    ).toEqual(['parts[0].colour', 'time_required']);
  });

  it('names nothing where the body or the schema keeps everything, and stays bounded', () => {
    expect(ignoredFields(z.looseObject({ a: z.string() }), { a: 'x', b: 1 })).toEqual([]);
    expect(ignoredFields(body, [{ title: 'x' }])).toEqual([]);
    // Names a header cannot carry are left out; at most 20 paths.
    expect(ignoredFields(body, { 'bad name': 1, é: 2 })).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, index]));
    expect(ignoredFields(body, many)).toHaveLength(20);
    // Nine levels of declared objects: an unknown field is named down to depth 8, not below.
    let deep: z.ZodMiniType = z.object({ leaf: z.optional(z.string()) });
    for (let level = 0; level < 9; level++) deep = z.object({ a: z.optional(deep) });
    const at = (levels: number) => {
      let value: Record<string, unknown> = { stray: 1 };
      for (let level = 0; level < levels; level++) value = { a: value };
      return value;
    };
    expect(ignoredFields(deep, at(2))).toEqual(['a.a.stray']);
    expect(ignoredFields(deep, at(9))).toEqual([]);
  });
});
