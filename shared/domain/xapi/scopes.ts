/**
 * What an LRS credential may do: the scopes xAPI's OAuth section names (docs/lrs.md). Pure.
 */
export const LRS_SCOPES = [
  'statements/write',
  'statements/read/mine',
  'statements/read',
  'state',
  'define',
  'profile',
  'all/read',
  'all',
] as const;

export type LrsScope = (typeof LRS_SCOPES)[number];

/** What a request needs: a resource family and whether it writes. */
export type LrsAccess = 'statements/write' | 'statements/read' | 'state' | 'profile' | 'activities' | 'agents';

/**
 * Whether scopes allow the access. `statements/read/mine` reads statements too, but only those its
 * own credential stored: the caller narrows the query (`mineOnly`).
 */
export function allows(scopes: readonly LrsScope[], access: LrsAccess, write: boolean): boolean {
  if (scopes.includes('all')) return true;
  if (!write && scopes.includes('all/read')) return true;
  switch (access) {
    case 'statements/write':
      return scopes.includes('statements/write');
    case 'statements/read':
      return scopes.includes('statements/read') || scopes.includes('statements/read/mine');
    case 'state':
      return scopes.includes('state');
    case 'profile':
      return scopes.includes('profile');
    case 'activities':
    case 'agents':
      return !write && (scopes.includes('profile') || scopes.includes('define') || scopes.includes('state'));
  }
}

/** True when the credential may read only the statements it stored itself. */
export function readsOnlyOwnStatements(scopes: readonly LrsScope[]): boolean {
  return !scopes.some((scope) => scope === 'all' || scope === 'all/read' || scope === 'statements/read');
}
