import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';

/**
 * Browser bundles built at `npm start` (server/build-bundle.ts: the GraphQL explorer, the office
 * app): files named `<name>-<content hash>.js|css` in one folder. Their names are remembered, and
 * looked for again when the remembered file is gone (a rebuild replaced it) or none is built yet;
 * the files are cached for a year, since a change gives a new name.
 */
export interface Bundle {
  js: string;
  css: string;
}

/** Folders of the apps' builds, when not the default ones under server/dist (tests serve builds of their own). */
export interface AppBundleDirs {
  /** The office app's bundle (default server/dist/app). */
  office?: string;
  /** The technician app's bundle (default server/dist/tech); its service worker is in the folder beside it named `<folder>-sw`. */
  technician?: string;
}

export function builtBundle(dir: string, name: string): () => Bundle | null {
  let found: Bundle | null = null;
  return () => {
    if (!found || !fs.existsSync(path.join(dir, found.js))) found = findBundle(dir, name);
    return found;
  };
}

function findBundle(dir: string, name: string): Bundle | null {
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return null;
  }
  // While a rebuild swaps files in, two builds' files may both be there: the newest is the one.
  const newest = (ext: string) =>
    files
      .filter((f) => new RegExp(`^${name}-\\w+\\.${ext}$`).test(f))
      .map((f) => ({ f, at: fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.at - a.at)[0]?.f;
  const js = newest('js');
  const css = newest('css');
  return js && css ? { js, css } : null;
}

export function immutableFiles(dir: string): RequestHandler {
  return express.static(path.resolve(dir), { immutable: true, maxAge: '365d', index: false });
}
