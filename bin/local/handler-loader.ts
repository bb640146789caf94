/** Loads a manifest handler file (relative to the repo root) once and returns its exported `handler`. */
import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const loaded = new Map<string, Promise<LambdaHandler>>();

export function loadHandler(file: string, root = process.cwd()): Promise<LambdaHandler> {
  let p = loaded.get(file);
  if (!p) {
    p = import(resolve(root, file)).then((mod: { handler?: LambdaHandler; default?: { handler?: LambdaHandler } }) => {
      const handler = mod.handler ?? mod.default?.handler;
      if (typeof handler !== 'function') throw new Error(`${file} does not export a handler`);
      return handler;
    });
    loaded.set(file, p);
  }
  return p;
}
