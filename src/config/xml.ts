// Hazelcast XML -> the raw tree in Hazelcast's YAML shape, so one validator serves both.
// Attributes and child elements become keys; the few places where Hazelcast's XML and YAML
// differ (named entries, lists, text-with-attributes) are spelled out in the tables below.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { childPath, type Problems } from './problems.js';

interface XmlElement {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: XmlElement[];
  readonly text: string;
}

/** Elements whose text sits beside attributes: the text becomes this key (`<port auto-increment="true">5701</port>`). */
const TEXT_KEYS: Readonly<Record<string, string>> = { port: 'port', 'merge-policy': 'class-name' };

/** Elements written in XML as `<x name="n">` and in YAML as `x: {n: {...}}`; value = the YAML key holding them. */
const NAMED_CHILDREN: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  hazelcast: { map: 'map', queue: 'queue', 'wan-replication': 'wan-replication', 'split-brain-protection': 'split-brain-protection' },
  map: { 'wan-replication-ref': 'wan-replication-ref' },
  'rest-api': { 'endpoint-group': 'endpoint-groups' },
  'rest-server-socket-endpoint-config': { 'endpoint-group': 'endpoint-groups' },
  'advanced-network': { 'wan-endpoint-config': 'wan-endpoint-config' },
};

/** Repeated children collected into a list under a YAML key: parent -> child -> key. */
const LIST_CHILDREN: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'tcp-ip': { member: 'member-list', interface: 'member-list' },
  interfaces: { interface: 'interfaces' },
  'trusted-interfaces': { interface: 'interfaces' },
  simple: { user: 'users' },
  user: { role: 'roles' },
};

/** Elements that are themselves a list of one kind of child (`<member-list><member>..`). */
const LIST_ELEMENTS: Readonly<Record<string, string>> = { 'member-list': 'member', realms: 'realm' };

/** Elements that are themselves a mapping of named children (`<endpoint-groups><endpoint-group name=..>`). */
const NAMED_ELEMENTS: Readonly<Record<string, string>> = { 'endpoint-groups': 'endpoint-group' };

/** Parses Hazelcast XML; returns the tree inside `<hazelcast>`, or undefined after recording problems. */
export function parseXml(text: string, problems: Problems): Record<string, unknown> | undefined {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    problems.error('', `XML is not well-formed (line ${valid.err.line}, column ${valid.err.col}): ${valid.err.msg}`);
    return undefined;
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    preserveOrder: true,
    trimValues: false, // text is trimmed below; attributes (passwords) are kept as written
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    processEntities: true,
  });
  const roots = toElements(parser.parse(text) as unknown[]);
  const root = roots[0];
  if (roots.length !== 1 || root === undefined || root.name !== 'hazelcast') {
    problems.error('', `the root element must be <hazelcast>, got ${roots.map((r) => `<${r.name}>`).join(', ') || 'none'}`);
    return undefined;
  }
  const raw = convert(root, 'hazelcast', problems);
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function toElements(nodes: unknown[]): XmlElement[] {
  const out: XmlElement[] = [];
  for (const node of nodes) {
    if (node === null || typeof node !== 'object') continue;
    const record = node as Record<string, unknown>;
    const tag = Object.keys(record).find((k) => k !== ':@' && k !== '#text');
    if (tag === undefined) continue;
    const content = Array.isArray(record[tag]) ? (record[tag] as unknown[]) : [];
    const attrs: Record<string, string> = {};
    const rawAttrs = record[':@'];
    if (rawAttrs !== null && typeof rawAttrs === 'object') {
      for (const [k, v] of Object.entries(rawAttrs as Record<string, unknown>)) {
        // Namespace declarations and xsi:* (schemaLocation) are XML plumbing, not settings.
        if (k === 'xmlns' || k.startsWith('xmlns:') || k.startsWith('xsi:')) continue;
        // Not trimmed: a password may start or end with a space; the validator trims the rest.
        attrs[localName(k)] = String(v);
      }
    }
    const text = content
      .map((c) => (c !== null && typeof c === 'object' && '#text' in c ? String((c as Record<string, unknown>)['#text']) : ''))
      .join('')
      .trim();
    out.push({ name: localName(tag), attrs, children: toElements(content), text });
  }
  return out;
}

function appendTo(out: Record<string, unknown>, key: string, value: unknown): void {
  const existing = out[key];
  if (Array.isArray(existing)) existing.push(value);
  else out[key] = [value];
}

/** The YAML-shaped value of one element. `path` is its YAML path, for messages. */
function convert(el: XmlElement, path: string, problems: Problems): unknown {
  const listChild = LIST_ELEMENTS[el.name];
  if (listChild !== undefined) {
    return el.children.map((c, i) => {
      if (c.name !== listChild) problems.warn(`${path}[${i}]`, `unknown element <${c.name}> (expected <${listChild}>), ignored`);
      return convert(c, `${path}[${i}]`, problems);
    });
  }
  const namedChild = NAMED_ELEMENTS[el.name];
  if (namedChild !== undefined) {
    const entries: Record<string, unknown> = {};
    for (const c of el.children) {
      const { name, ...attrs } = c.attrs;
      if (c.name !== namedChild || name === undefined || name === '') {
        problems.warn(childPath(path, c.name), `unknown element (expected <${namedChild} name="...">), ignored`);
        continue;
      }
      if (name in entries) problems.error(childPath(path, name), `duplicate ${c.name} name "${name}"`);
      entries[name] = convert({ ...c, attrs }, childPath(path, name), problems);
    }
    return entries;
  }
  if (el.name === 'properties') {
    const props: Record<string, unknown> = {};
    for (const c of el.children) {
      const name = c.attrs['name'];
      if (c.name !== 'property' || name === undefined) {
        problems.warn(childPath(path, c.name), 'unknown element (expected <property name="...">), ignored');
        continue;
      }
      props[name] = c.text;
    }
    return props;
  }
  const textKey = TEXT_KEYS[el.name];
  if (el.children.length === 0 && Object.keys(el.attrs).length === 0 && textKey === undefined) return el.text;

  const out: Record<string, unknown> = { ...el.attrs };
  if (el.text !== '') out[textKey ?? 'value'] = el.text;
  const named = NAMED_CHILDREN[el.name] ?? {};
  const lists = LIST_CHILDREN[el.name] ?? {};
  const seen = new Map<string, unknown[]>();
  for (const c of el.children) {
    const namedKey = named[c.name];
    const listKey = lists[c.name];
    if (namedKey !== undefined) {
      const { name, ...attrs } = c.attrs;
      if (name === undefined || name === '') {
        problems.error(childPath(path, namedKey), `<${c.name}> needs a name attribute`);
        continue;
      }
      const entries = (out[namedKey] ??= {}) as Record<string, unknown>;
      const entryPath = childPath(childPath(path, namedKey), name);
      if (name in entries) problems.error(entryPath, `duplicate ${c.name} name "${name}"`);
      entries[name] = convert({ ...c, attrs }, entryPath, problems);
    } else if (listKey !== undefined) {
      const existing = out[listKey];
      const index = Array.isArray(existing) ? existing.length : 0;
      appendTo(out, listKey, convert(c, `${childPath(path, listKey)}[${index}]`, problems));
    } else if (el.name === 'wan-replication' && c.name === 'batch-publisher') {
      // YAML keys batch publishers by publisher id; XML names them by child elements.
      const pick = (n: string): string | undefined => c.children.find((x) => x.name === n)?.text;
      const id = pick('publisher-id') || pick('cluster-name') || 'dev';
      const entries = (out['batch-publisher'] ??= {}) as Record<string, unknown>;
      const entryPath = childPath(childPath(path, 'batch-publisher'), id);
      if (id in entries) problems.error(entryPath, `duplicate batch-publisher id "${id}"`);
      entries[id] = convert(c, entryPath, problems);
    } else if (el.name === 'tcp-ip' && c.name === 'members') {
      // Several <members> elements add up, like several <member> elements do.
      const prev = out['members'];
      out['members'] = typeof prev === 'string' && prev !== '' ? `${prev},${c.text}` : c.text;
    } else {
      const key = c.name;
      const value = convert(c, childPath(path, key), problems);
      const existing = out[key];
      if (LIST_ELEMENTS[key] !== undefined && Array.isArray(existing) && Array.isArray(value)) {
        // <member> before <member-list> in <tcp-ip>: both feed the same list.
        existing.push(...(value as unknown[]));
        continue;
      }
      // A repeated element becomes a list; where one value is expected the validator says so.
      const repeats = seen.get(key);
      if (repeats === undefined) {
        seen.set(key, [value]);
        out[key] = value;
      } else {
        repeats.push(value);
        out[key] = repeats;
      }
    }
  }
  return out;
}
