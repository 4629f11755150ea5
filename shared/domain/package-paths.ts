/**
 * Paths inside a module package, without the package parser: what the views and the cmi5 launch
 * need at request time, in a file that does not load fast-xml-parser (decision 323).
 */

/** The package path the launch names, or null for an absolute URL (cmi5 may launch elsewhere). */
export function launchPath(launch: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(launch)) return null;
  const path = launch.split(/[?#]/)[0]!.replace(/^\.\//, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** A package path with its `.` and `..` segments resolved (isPackagePath holds for it). */
export function normalizedPackagePath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '.' && segment !== '') out.push(segment);
  }
  return out.join('/');
}
