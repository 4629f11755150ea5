/**
 * Child of test/bench/round-trips.ts, in a fresh process (no stack, no deliverer polling): every
 * group's handler from source against the stack's engines given in the environment, every
 * DynamoDB client counted by a middleware offered through the SDK client hook (one count per
 * HTTP attempt, retries included). For each route: a warm-up call (authentication cached, as in a
 * warm container), then the counted call. Prints one JSON line: route -> round trips and commands.
 */
import { countDynamoDbCommands } from '../support/dynamodb-commands.ts';
import { apiEvent } from './api-event.ts';
import { ROUND_TRIP_ROUTES, type Fixtures } from './round-trip-routes.ts';

const dynamoDb = countDynamoDbCommands();

const { applyLocalEnvironment } = await import('../../infra/local/environment.ts');
applyLocalEnvironment({ LOG_LEVEL: 'ERROR' });
const { routeGroups } = await import('../../functions/routes.ts');
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
const handlers = new Map<string, Handler>();
for (const group of routeGroups)
  handlers.set(group.name, (await import(`../../functions/${group.name}/handler.ts`)).handler as Handler);
const groupOf = new Map(routeGroups.flatMap((group) => group.routes.map((r) => [`${r.method} ${r.path}`, group])));
const exampleOf = (key: string) => groupOf.get(key)!.routes.find((r) => `${r.method} ${r.path}` === key)!.example;

async function call(key: string, options: Parameters<typeof apiEvent>[2] = {}) {
  const [method, path] = key.split(' ');
  const group = groupOf.get(key);
  if (!group) throw new Error(`no route ${key}`);
  const result = await handlers.get(group.name)!(apiEvent(method, path, options), {});
  const body = result.body ? JSON.parse(result.body) : undefined;
  if (result.statusCode >= 300) throw new Error(`${key} answered ${result.statusCode}: ${result.body}`);
  return body;
}

// Fixtures, through the handlers themselves.
const login = await call('POST /user/token', { body: { email: 'admin@example.com', password: 'stepwise-admin' } });
const token = login.authToken as string;
const stamp = Date.now();
const other = await call('POST /users', {
  token,
  body: { email: `trips.${stamp}@example.com`, username: `Trips ${stamp}`, password: 'Bench-pass-123' },
});
await call('POST /wikis', {
  token,
  body: { namespace: 'CATEGORY', title: `Printers ${stamp}`, contents: 'Printers.' },
});
const wiki = await call('POST /wikis', {
  token,
  body: { ...(exampleOf('POST /wikis') as object), title: `Torque ${stamp}` },
});
const guide = await call('POST /guides', {
  token,
  body: { ...(exampleOf('POST /guides') as object), category: `Printers ${stamp}`, public: true },
});
await call('POST /guides/{guideid}/steps', {
  token,
  params: { guideid: String(guide.guideid) },
  body: exampleOf('POST /guides/{guideid}/steps'),
});
const team = await call('POST /teams', {
  token,
  body: { ...(exampleOf('POST /teams') as object), name: `Trips ${stamp}` },
});
await call('PUT /teams/{teamid}/users/{userid}', {
  token,
  params: { teamid: String(team.teamid), userid: String(other.userid) },
});
const fixtures: Fixtures = {
  self: String(login.userid),
  other: String(other.userid),
  guide: String(guide.guideid),
  team: String(team.teamid),
  wikiNamespace: wiki.namespace,
  wikiTitle: wiki.title,
  search: `Trips`,
};

const measured: Record<string, { count: number; commands: string[] } | string> = {};
for (const route of ROUND_TRIP_ROUTES) {
  const options = { token, ...route.request(fixtures) };
  try {
    // Warm: this container has authenticated the token (and, for a write, a read comes first,
    // as the write empties the container's caches).
    await call('GET /user', { token });
    if (route.key.startsWith('GET ')) await call(route.key, options);
    await call('GET /user', { token });
    const { commands } = await dynamoDb.during(() => call(route.key, options));
    measured[route.key] = { count: commands.length, commands };
  } catch (error) {
    measured[route.key] = (error as Error).message.slice(0, 120);
  }
}
console.log(`ROUND_TRIPS ${JSON.stringify(measured)}`);
