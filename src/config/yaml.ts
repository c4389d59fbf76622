// Hazelcast YAML -> the raw tree inside `hazelcast:`. YAML already has the raw shape; this
// only parses, checks the root and keeps parser messages free of source excerpts (a
// malformed line may hold a password): a syntax error names its line, column and the key
// path it sits under, never the text of the line.

import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { isRecord, type Problems } from './problems.js';

/** Parses Hazelcast YAML; returns the tree inside `hazelcast:`, or undefined after recording problems. */
export function parseYaml(text: string, problems: Problems): Record<string, unknown> | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, merge: true, lineCounter });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = lineCounter.linePos(e.pos[0]);
      const key = keyPathAt(doc.contents, e.pos[0]);
      const where = ` (line ${pos.line}, column ${pos.col}${key === '' ? '' : `, at ${key}`})`;
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

/**
 * The key path (`hazelcast.network.port`, `hazelcast.security.realms[0].name`) of the deepest
 * mapping entry or list item of the (partly) parsed document whose source range holds
 * `offset`: where a syntax error sits. Only key names are quoted, never values.
 */
export function keyPathAt(contents: unknown, offset: number): string {
  const path: string[] = [];
  let node: unknown = contents;
  for (;;) {
    let next: unknown;
    if (isMap(node)) {
      for (const pair of node.items) {
        const start = isNode(pair.key) ? pair.key.range?.[0] : undefined;
        const end = isNode(pair.value) ? pair.value.range?.[2] : isNode(pair.key) ? pair.key.range?.[2] : undefined;
        if (start === undefined || end === undefined || offset < start || offset > end) continue;
        path.push(isScalar(pair.key) ? String(pair.key.value) : '?');
        next = pair.value;
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const range = isNode(item) ? item.range : undefined;
        if (range && offset >= range[0] && offset <= range[2]) {
          path.push(`[${i}]`);
          next = item;
        }
      });
    }
    if (next === undefined) break;
    node = next;
  }
  return path.join('.').replace(/\.\[/g, '[');
}
