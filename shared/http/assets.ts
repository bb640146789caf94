/**
 * Files a route ships beside its bundle (the manifest's `assets`, copied into the
 * Lambda asset by lib/service-function.ts): read from the function's code root
 * on Lambda, from the repository root on the local stack and in tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const readAsset = (name: string): string => readFileSync(join(process.env.LAMBDA_TASK_ROOT ?? process.cwd(), name), 'utf8');
