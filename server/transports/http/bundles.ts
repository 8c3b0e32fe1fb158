import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';

/**
 * Browser bundles built by esbuild at `npm start` (the GraphQL explorer, the office app): files
 * named `<name>-<content hash>.js|css` in one folder. Their names are found once (and looked for
 * again while the bundle is not built yet); the files are cached for a year, since a change gives
 * a new name.
 */
export interface Bundle {
  js: string;
  css: string;
}

export function builtBundle(dir: string, name: string): () => Bundle | null {
  let found: Bundle | null = null;
  return () => (found ??= findBundle(dir, name));
}

function findBundle(dir: string, name: string): Bundle | null {
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const js = files.find((f) => new RegExp(`^${name}-\\w+\\.js$`).test(f));
  const css = files.find((f) => new RegExp(`^${name}-\\w+\\.css$`).test(f));
  return js && css ? { js, css } : null;
}

export function immutableFiles(dir: string): RequestHandler {
  return express.static(path.resolve(dir), { immutable: true, maxAge: '365d', index: false });
}
