/** Loads a manifest handler file (relative to the repo root) once and returns its exported `handler`. */
import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** Runs every invocation (handler file, its event, the call): `npm run cost` meters Lambda use around it. */
export type InvocationHook = (file: string, event: unknown, invoke: () => Promise<unknown>) => Promise<unknown>;

const loaded = new Map<string, Promise<LambdaHandler>>();
let hook: InvocationHook | undefined;

export function hookInvocations(next: InvocationHook | undefined): void {
  hook = next;
}

export function loadHandler(file: string, root = process.cwd()): Promise<LambdaHandler> {
  let p = loaded.get(file);
  if (!p) {
    p = import(resolve(root, file)).then((mod: { handler?: LambdaHandler; default?: { handler?: LambdaHandler } }) => {
      const handler = mod.handler ?? mod.default?.handler;
      if (typeof handler !== 'function') throw new Error(`${file} does not export a handler`);
      return (event: unknown, context: Context) => (hook ? hook(file, event, () => handler(event, context)) : handler(event, context));
    });
    loaded.set(file, p);
  }
  return p;
}
