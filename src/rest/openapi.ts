// The OpenAPI 3.1 document of the REST surface, generated from the route table (route-table.ts,
// route-scopes.ts' PARAMS): every row, under both prefixes, with the statuses it declares and the
// errors every route can answer. Pure: built once, on the first GET /grid/openapi.json.
// It reads the table through the structural types below, so it imports nothing of the table.

import type { EndpointGroupName } from '../config/types.js';
import { GridError } from '../core/errors.js';
import { sendText } from './respond.js';
import type { Handler } from './route-kit.js';

/** What a response carries: `empty` (Content-Length 0), `error` (empty, with X-Grid-Error), or a body. */
export type BodyKind = 'empty' | 'error' | 'json' | 'text' | 'value' | 'prometheus';

/** A declared status of a row: its body, and what it means when the status alone does not say. */
export type Reply =
  | BodyKind
  | {
      readonly body: BodyKind;
      readonly about: string;
      readonly schema?: JsonSchema;
      /** Media types and their schemas, where the answer comes in more than one (the batch: JSON or binary, as asked). */
      readonly content?: Readonly<Record<string, JsonSchema>>;
    };

export type JsonSchema = Readonly<Record<string, unknown>>;

/** The table, as the generator reads it (route-table.ts's Endpoint has these members). */
export interface DocumentedEndpoint {
  readonly method: string;
  readonly path: string;
  readonly group: EndpointGroupName;
  readonly params: string;
  readonly answer: string;
  readonly readsBody: boolean;
  readonly credentials: boolean;
  readonly routes: Readonly<Record<string, unknown>>;
  readonly head?: false;
  readonly responses?: Readonly<Record<number, Reply>>;
  /** The request body's media types and schemas, where it has a defined shape (default: any bytes). */
  readonly requestContent?: Readonly<Record<string, JsonSchema>>;
  readonly responsesOf?: Readonly<Record<string, Readonly<Record<number, Reply>>>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly gridOnly?: true;
}

export interface DocumentedParam {
  readonly about?: string;
}

/** The prefixes every path is served under (grid-behavior.md §1). */
export const PREFIXES = ['grid', 'hazelcast'] as const;

/**
 * Errors any route can answer, whatever its row declares (grid-behavior.md §3): the contract's
 * 400 (unknown path or method, malformed request), 403 (group disabled, credentials), 431
 * (request head too large), 500 (unexpected) and 503 (the member cannot serve it now: shutting
 * down, cluster passive, no reachable owner, body budget full). 413 where a body is read.
 */
const COMMON_ERRORS: Readonly<Record<number, string>> = {
  400: 'Unknown path or method, malformed path, parameters or body.',
  403: 'The endpoint group is disabled, or credentials are wrong or missing.',
  431: 'Request line and headers exceed the member\'s limit.',
  500: 'An unexpected error, or a feature this member has not enabled; the member keeps serving.',
  503: 'The member cannot serve the request now (shutting down, cluster passive, partition without reachable owner, REST body budget full, queue full, CP unavailable); a client may retry.',
};
const TOO_LARGE = 'The body exceeds grid.rest.max-body-bytes.';

const ERROR_RESPONSE = {
  description: 'An error: empty body, the reason in X-Grid-Error.',
  headers: { 'X-Grid-Error': { $ref: '#/components/headers/X-Grid-Error' } },
};

/** The document for a table. Throws when two rows claim one method of one path. */
export function openApiDocument(endpoints: readonly DocumentedEndpoint[], params: Readonly<Record<string, DocumentedParam>>, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  // Paths equal but for their parameter names (`{value}`, `{seconds}`) are one path in OpenAPI:
  // the first spelling is kept, later rows name their parameters by position.
  const spellings = new Map<string, string>();
  for (const e of endpoints) {
    const methods = e.method.split(', ').map((m) => m.toLowerCase());
    if (methods.includes('get') && e.head !== false) methods.push('head');
    for (const pattern of Object.keys(e.routes)) {
      for (const prefix of e.gridOnly === true ? PREFIXES.slice(0, 1) : PREFIXES) {
        const own = `/${prefix}/${pattern.replace(/<([A-Za-z]+)…?>/g, '{$1}')}`;
        const shape = own.replace(/\{[^}]+\}/g, '{}');
        const path = spellings.get(shape) ?? own;
        spellings.set(shape, path);
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        const ownNames = [...pattern.matchAll(/<([A-Za-z]+)(…)?>/g)];
        const item = (paths[path] ??= {});
        for (const method of methods) {
          if (item[method] !== undefined) throw new Error(`openapi: ${method.toUpperCase()} ${path} is claimed twice`);
          item[method] = operation(e, method, prefix, pattern, names, ownNames, params);
        }
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grid member REST API',
      version,
      summary: 'Hazelcast-compatible member REST API (under /hazelcast/ and /grid/) and Grid\'s own endpoints.',
      description: 'Generated from the route table (src/rest/route-table.ts). Every path is served under /grid/ and /hazelcast/ alike, but this document (Grid-only). Error responses have an empty body and a one-line reason in X-Grid-Error. PUT behaves as POST everywhere and is not listed.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [...new Set(endpoints.map((e) => e.group))].map((g) => ({ name: g, description: `Endpoint group ${g} (enabled in rest-api.endpoint-groups).` })),
    paths,
    components: {
      headers: {
        'X-Grid-Error': { description: 'One-line reason of an error.', required: true, schema: { type: 'string' } },
      },
      responses: Object.fromEntries(Object.entries({ ...COMMON_ERRORS, 413: TOO_LARGE }).map(([status, about]) => [`E${status}`, { ...ERROR_RESPONSE, description: about }])),
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Cluster name (or realm user) and password; instead of the first two body parameters.' },
      },
    },
  };
}

function operation(
  e: DocumentedEndpoint,
  method: string,
  prefix: string,
  pattern: string,
  names: readonly string[],
  ownNames: readonly RegExpMatchArray[],
  params: Readonly<Record<string, DocumentedParam>>,
): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = ownNames.map((m, i) => {
    const own = m[1]!;
    const about = params[own]?.about ?? own;
    return {
      name: names[i] ?? own,
      in: 'path',
      required: true,
      description: m[2] === undefined ? about : `${about} (the rest of the path: may hold \`/\`)`,
      schema: { type: 'string', minLength: 1 },
    };
  });
  for (const [name, about] of Object.entries(e.query ?? {})) parameters.push({ name, in: 'query', required: false, description: about, schema: { type: 'string' } });
  const op: Record<string, unknown> = {
    operationId: `${prefix}_${method}_${pattern.replace(/[<>…]/g, '').replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: [e.group],
    summary: e.answer.replace(/`/g, ''),
    'x-grid-group': e.group,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (e.readsBody && method !== 'get' && method !== 'head' && method !== 'delete') op.requestBody = requestBody(e);
  if (e.credentials) op.security = [{}, { basic: [] }];
  op.responses = responses(e, e.responsesOf?.[pattern] ?? e.responses, method === 'head');
  return op;
}

function requestBody(e: DocumentedEndpoint): Record<string, unknown> {
  if (e.credentials) {
    return {
      required: false,
      description: `Parameters separated by \`&\`: ${e.params}, the first two the cluster name (or user) and password unless an \`Authorization: Basic\` header gives them.`,
      content: { 'text/plain': { schema: { type: 'string' } }, 'application/x-www-form-urlencoded': { schema: { type: 'string' } } },
    };
  }
  if (e.requestContent !== undefined) {
    return {
      required: true,
      description: e.params.replace(/`/g, ''),
      content: Object.fromEntries(Object.entries(e.requestContent).map(([type, schema]) => [type, { schema }])),
    };
  }
  return {
    required: false,
    description: e.params.replace(/`/g, ''),
    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
  };
}

function responses(e: DocumentedEndpoint, declared: Readonly<Record<number, Reply>> | undefined, head: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, reply] of Object.entries(declared ?? { 200: 'value' })) {
    const body = typeof reply === 'string' ? reply : reply.body;
    const about = typeof reply === 'string' ? undefined : reply.about;
    const schema = typeof reply === 'string' ? undefined : reply.schema;
    const content = typeof reply === 'string' ? undefined : reply.content;
    if (content !== undefined && !head) {
      out[status] = { description: about ?? e.answer.replace(/`/g, ''), content: Object.fromEntries(Object.entries(content).map(([type, s]) => [type, { schema: s }])) };
      continue;
    }
    out[status] = body === 'error' ? { ...ERROR_RESPONSE, description: about ?? ERROR_RESPONSE.description } : success(body, about ?? e.answer.replace(/`/g, ''), head, schema);
  }
  const common = e.readsBody ? [...Object.keys(COMMON_ERRORS), '413'] : Object.keys(COMMON_ERRORS);
  for (const status of common) out[status] ??= { $ref: `#/components/responses/E${status}` };
  return out;
}

function success(body: BodyKind, description: string, head: boolean, schema: JsonSchema | undefined): Record<string, unknown> {
  if (head || body === 'empty' || body === 'error') return { description };
  switch (body) {
    case 'json':
      return { description, content: { 'application/json': { schema: schema ?? {} } } };
    case 'text':
      return { description, content: { 'text/plain': { schema: schema ?? { type: 'string' } } } };
    case 'prometheus':
      return { description, content: { 'text/plain': { schema: { type: 'string' } } } };
    case 'value':
      // A value goes out with the Content-Type it was stored with, and none when it was stored
      // without one (as Hazelcast): no media type can be promised, so none is listed.
      return { description: `${description} Any media type: the one the value was stored with, no Content-Type when it had none.` };
  }
}

/** GET /grid/openapi.json: the document of `endpoints()`, built on first use. Grid's own: not under /hazelcast/. */
export function openApiHandler(endpoints: () => readonly DocumentedEndpoint[], params: () => Readonly<Record<string, DocumentedParam>>, version: string): Handler {
  let text: string | undefined;
  return (r) => {
    if (r.req.url?.startsWith('/hazelcast/') === true) throw new GridError('UNKNOWN_ENDPOINT', `no endpoint ${r.method} ${r.req.url} (the OpenAPI document is Grid's own: /grid/openapi.json)`);
    text ??= JSON.stringify(openApiDocument(endpoints(), params(), version));
    sendText(r.res, text, 'application/json');
  };
}
