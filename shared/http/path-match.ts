/**
 * Matches request paths against route templates the way API Gateway HTTP APIs do: a `{name}`
 * segment matches exactly one segment, and where two templates match, the one with a literal
 * segment at the first point of difference wins (`/users/email/{email}` beats
 * `/users/{userid}/guides`).
 */
import type { HttpMethod } from './route.ts';

interface Segment {
  literal?: string;
  param?: string;
}

export interface CompiledTemplate<T> {
  template: string;
  method: HttpMethod;
  segments: Segment[];
  value: T;
  /** Parameters are form-decoded: `+` is a space (a literal plus arrives as %2B). */
  plusAsSpace?: boolean;
}

export interface PathMatch<T> {
  value: T;
  params: Record<string, string>;
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function compileSegments(template: string): Segment[] {
  return splitPath(template).map((segment) => {
    const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
    return param ? { param: param[1] } : { literal: segment };
  });
}

/** "0" for a literal segment, "1" for a parameter: sorting by it puts literals first. */
function shapeKey(segments: Segment[]): string {
  return segments.map((segment) => (segment.literal !== undefined ? '0' : '1')).join('');
}

/** Orders templates so the first match is the most specific one (a total order). */
function bySpecificity<T>(a: CompiledTemplate<T>, b: CompiledTemplate<T>): number {
  const aKey = shapeKey(a.segments);
  const bKey = shapeKey(b.segments);
  return aKey < bKey ? -1 : aKey > bKey ? 1 : 0;
}

function decodeSegment(segment: string, plusAsSpace = false): string | undefined {
  try {
    return decodeURIComponent(plusAsSpace ? segment.replace(/\+/g, ' ') : segment);
  } catch {
    return undefined;
  }
}

export class PathMatcher<T> {
  private readonly templates: CompiledTemplate<T>[];
  /**
   * The templates again, by method and segment count, in the same order: a path is compared only
   * with the templates that could match it (the local gateway holds every route of the API).
   */
  private readonly byShape = new Map<string, CompiledTemplate<T>[]>();

  constructor(entries: Array<{ method: HttpMethod; path: string; value: T; plusAsSpace?: boolean }>) {
    this.templates = entries
      .map((entry) => ({
        template: entry.path,
        method: entry.method,
        segments: compileSegments(entry.path),
        value: entry.value,
        plusAsSpace: entry.plusAsSpace,
      }))
      .sort(bySpecificity);
    for (const template of this.templates) {
      const key = `${template.method} ${template.segments.length}`;
      const bucket = this.byShape.get(key);
      if (bucket) bucket.push(template);
      else this.byShape.set(key, [template]);
    }
  }

  private matchTemplate(template: CompiledTemplate<T>, segments: string[]): Record<string, string> | undefined {
    if (template.segments.length !== segments.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const expected = template.segments[i];
      if (expected.literal !== undefined) {
        if (expected.literal !== segments[i]) return undefined;
      } else {
        const decoded = decodeSegment(segments[i], template.plusAsSpace);
        if (decoded === undefined) return undefined;
        params[expected.param!] = decoded;
      }
    }
    return params;
  }

  /** The route for this method and path, if any. */
  match(method: string, path: string): PathMatch<T> | undefined {
    const segments = splitPath(path);
    for (const template of this.byShape.get(`${method} ${segments.length}`) ?? []) {
      const params = this.matchTemplate(template, segments);
      if (params) return { value: template.value, params };
    }
    return undefined;
  }

  /** Methods served on this path by any template (for 405 and its Allow header). */
  allowedMethods(path: string): HttpMethod[] {
    const segments = splitPath(path);
    const methods = new Set<HttpMethod>();
    for (const template of this.templates) {
      if (this.matchTemplate(template, segments)) methods.add(template.method);
    }
    return [...methods];
  }
}
