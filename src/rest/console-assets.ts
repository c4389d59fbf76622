// The web console's static files (docs/console.md), held in memory: read once when the member
// starts, from the build's dist/console/ (scripts/build-console.mjs writes them with a
// manifest), each with its gzip form, Content-Type and ETag. Answering a request is a map
// lookup: no file is opened per request, so no request path can reach the filesystem (a
// `../` in a name is only a name that is not in the map).
//
// pickEncoding and the asset index are pure; loadConsoleAssets is the one reader of the disk.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  readonly name: string;
  readonly body: Buffer;
  /** The precompressed form, when the build wrote one smaller than the body. */
  readonly gzip: Buffer | undefined;
  readonly contentType: string;
  /** A strong validator: the body's hash, quoted. */
  readonly etag: string;
  /** A content-hashed name (never changes content): cached for a year, no revalidation. */
  readonly immutable: boolean;
}

/** The console as served: its assets by name (`index.html` among them), or why there is none. */
export type ConsoleBundle =
  | { readonly ok: true; readonly assets: ReadonlyMap<string, ConsoleAsset>; readonly dir: string }
  | { readonly ok: false; readonly reason: string };

/** What the build's manifest.json holds (scripts/build-console.mjs writes it). */
export interface ConsoleManifest {
  readonly files: readonly { readonly name: string; readonly hashed: boolean }[];
}

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  txt: 'text/plain; charset=utf-8',
};

/** The Content-Type of an asset name by its extension (unknown ones are served as bytes). */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot === -1 ? undefined : TYPES[name.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}

/**
 * Whether an `Accept-Encoding` header accepts gzip: `gzip` or `*` listed with a q-value above 0
 * (RFC 9110 §12.5.3; an explicit `gzip;q=0` refuses it even when `*` is accepted).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (name === '*') star = q > 0;
    else return q > 0;
  }
  return star;
}

/** Whether an `If-None-Match` header lists `etag` (or is `*`): the client's copy is current. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  for (const raw of header.split(',')) {
    const t = raw.trim();
    if (t === '*' || t === etag || t === `W/${etag}`) return true;
  }
  return false;
}

/** The asset index of a manifest and the files' contents (`read` returns undefined for a file that is absent). */
export function indexAssets(manifest: ConsoleManifest, read: (name: string) => Buffer | undefined): ConsoleBundle {
  const assets = new Map<string, ConsoleAsset>();
  for (const f of manifest.files) {
    if (!/^[A-Za-z0-9._-]+$/.test(f.name) || f.name.startsWith('.')) return { ok: false, reason: `the console manifest names a bad file "${f.name}"` };
    const body = read(f.name);
    if (body === undefined) return { ok: false, reason: `the console file ${f.name} named by its manifest is missing (rebuild with npm run build)` };
    const gz = read(`${f.name}.gz`);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(f.name, {
      name: f.name,
      body,
      gzip: gz !== undefined && gz.length < body.length ? gz : undefined,
      contentType: contentTypeOf(f.name),
      etag,
      immutable: f.hashed,
    });
  }
  if (!assets.has('index.html')) return { ok: false, reason: 'the console manifest has no index.html (rebuild with npm run build)' };
  return { ok: true, assets, dir: '' };
}

/**
 * Where the build puts the console: dist/console/ next to the compiled REST layer (dist/rest/),
 * or, when Grid runs from its TypeScript sources (tests), the package's dist/console/.
 */
export function defaultConsoleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, '..', 'console');
  return existsSync(join(beside, 'manifest.json')) ? beside : join(here, '..', '..', 'dist', 'console');
}

/** Reads the console's files into memory (once, at member start). Never throws: a missing build is a reason. */
export function loadConsoleAssets(dir: string = defaultConsoleDir()): ConsoleBundle {
  let manifest: ConsoleManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ConsoleManifest;
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      ok: false,
      reason: missing
        ? `this member's build has no web console (no ${join(dir, 'manifest.json')}: run npm run build)`
        : `the console manifest in ${dir} is unreadable: ${(e as Error).message}`,
    };
  }
  if (!Array.isArray(manifest.files)) return { ok: false, reason: `the console manifest in ${dir} lists no files` };
  const bundle = indexAssets(manifest, (name) => {
    try {
      return readFileSync(join(dir, name));
    } catch {
      return undefined;
    }
  });
  return bundle.ok ? { ...bundle, dir } : bundle;
}
