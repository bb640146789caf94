/** Loads a manifest handler file (relative to the repo root) once and returns its exported `handler`. */
import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** Told of every invocation (handler file, wall time in ms): `npm run cost` counts Lambda duration with it. */
export type InvocationObserver = (file: string, ms: number) => void;

const loaded = new Map<string, Promise<LambdaHandler>>();
let observer: InvocationObserver | undefined;

export function observeInvocations(next: InvocationObserver | undefined): void {
  observer = next;
}

export function loadHandler(file: string, root = process.cwd()): Promise<LambdaHandler> {
  let p = loaded.get(file);
  if (!p) {
    p = import(resolve(root, file)).then((mod: { handler?: LambdaHandler; default?: { handler?: LambdaHandler } }) => {
      const handler = mod.handler ?? mod.default?.handler;
      if (typeof handler !== 'function') throw new Error(`${file} does not export a handler`);
      return async (event: unknown, context: Context) => {
        if (!observer) return handler(event, context);
        const started = performance.now();
        try {
          return await handler(event, context);
        } finally {
          observer?.(file, performance.now() - started);
        }
      };
    });
    loaded.set(file, p);
  }
  return p;
}
