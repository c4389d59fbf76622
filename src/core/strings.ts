// String layout helpers for memory that lives long.

/**
 * V8 makes a substring of 13 characters or more a "sliced string" that keeps its whole parent
 * alive. A map key cut out of a request URL would pin the URL for as long as the entry lives
 * (about 60 extra bytes per entry for typical keys). This returns a flat copy; shorter
 * strings are copies already and are returned as they are.
 */
export function detachedCopy(s: string): string {
  if (s.length < 13) return s;
  return Buffer.from(s, 'utf8').toString('utf8');
}
