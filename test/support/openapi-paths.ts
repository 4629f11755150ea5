/**
 * Which paths of the OpenAPI document could one request URL match twice? Redocly's
 * `no-ambiguous-paths` compares the path strings only, so it flags the spec's own wire paths such
 * as /users/search/{search} beside /users/{userid}/badges. This check also reads the path
 * parameters' patterns (decision 264): of two paths with as many segments and as many parameters
 * (fewer parameters is the more specific path, which routers and Redocly's rule prefer), a pair is
 * ambiguous only if no segment tells the two apart, i.e. every literal segment facing a parameter is
 * a value that parameter's pattern accepts.
 */
type Operation = { parameters?: Array<{ name: string; in: string; schema?: { pattern?: string; type?: string } }> };

interface Template {
  path: string;
  segments: string[];
  /** A parameter's pattern, by name: from the path's operations. */
  patterns: Map<string, RegExp | undefined>;
}

const PARAMETER = /^\{(.+)\}$/;

function template(path: string, methods: Record<string, Operation>): Template {
  const patterns = new Map<string, RegExp | undefined>();
  for (const operation of Object.values(methods))
    for (const parameter of operation.parameters ?? [])
      if (parameter.in === 'path' && !patterns.has(parameter.name))
        patterns.set(parameter.name, parameter.schema?.pattern ? new RegExp(parameter.schema.pattern, 'u') : undefined);
  return { path, segments: path.split('/'), patterns };
}

/** Could the literal `value` fill the parameter segment `segment` of `owner`? */
function accepts(owner: Template, segment: string, value: string): boolean {
  const name = PARAMETER.exec(segment)?.[1];
  if (name === undefined) return segment === value;
  const pattern = owner.patterns.get(name);
  return pattern === undefined || pattern.test(value);
}

const parameterCount = (template: Template) => template.segments.filter((segment) => PARAMETER.test(segment)).length;

function overlap(a: Template, b: Template): boolean {
  if (a.segments.length !== b.segments.length || parameterCount(a) !== parameterCount(b)) return false;
  return a.segments.every((left, index) => {
    const right = b.segments[index]!;
    const leftIsParameter = PARAMETER.test(left);
    const rightIsParameter = PARAMETER.test(right);
    if (leftIsParameter && rightIsParameter) return true;
    if (leftIsParameter) return accepts(a, left, right);
    if (rightIsParameter) return accepts(b, right, left);
    return left === right;
  });
}

/** Every pair of templated paths that one URL could match, patterns considered: "a | b". */
export function ambiguousPaths(paths: Record<string, Record<string, Operation>>): string[] {
  const templates = Object.entries(paths)
    .filter(([path]) => path.includes('{'))
    .map(([path, methods]) => template(path, methods));
  const pairs: string[] = [];
  for (const [index, a] of templates.entries())
    for (const b of templates.slice(index + 1)) if (overlap(a, b)) pairs.push(`${a.path} | ${b.path}`);
  return pairs;
}

/** The same pairs as Redocly finds them: by the path strings alone. */
export function ambiguousPathStrings(paths: Record<string, unknown>): string[] {
  const bare = Object.fromEntries(Object.keys(paths).map((path) => [path, {}]));
  return ambiguousPaths(bare);
}
