// Hazelcast YAML -> the raw tree inside `hazelcast:`. YAML already has the raw shape; this
// only parses, checks the root and keeps parser messages free of source excerpts (a
// malformed line may hold a password).

import { parseDocument } from 'yaml';
import { isRecord, type Problems } from './problems.js';

/** Parses Hazelcast YAML; returns the tree inside `hazelcast:`, or undefined after recording problems. */
export function parseYaml(text: string, problems: Problems): Record<string, unknown> | undefined {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, merge: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = e.linePos?.[0];
      const where = pos === undefined ? '' : ` (line ${pos.line}, column ${pos.col})`;
      // The first line only: later lines quote the source, which may hold secrets.
      const message = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      problems.error('', `YAML is not well-formed${where}: ${message}`);
    }
    return undefined;
  }
  const data: unknown = doc.toJS({ maxAliasCount: 1000 });
  if (!isRecord(data) || !('hazelcast' in data)) {
    problems.error('', 'the root element must be "hazelcast:"');
    return undefined;
  }
  for (const key of Object.keys(data)) {
    if (key !== 'hazelcast') problems.warn(key, 'unknown root element, ignored (settings belong under "hazelcast:")');
  }
  const inner = data['hazelcast'];
  if (inner === null || inner === undefined) return {};
  if (!isRecord(inner)) {
    problems.error('hazelcast', 'must be a mapping');
    return undefined;
  }
  return inner;
}
