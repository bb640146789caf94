/**
 * zod for the code that runs in the functions: `zod/mini` (the same zod 4 core as classic `zod`, with a
 * functional, tree-shakable API: a bundle carries only the checks its schemas use), configured with the
 * English messages classic `zod` sets by default, so a merchant reads the same errors. Runtime schemas
 * import it as `import * as z from '../zod'`; classic `zod` stays in the OpenAPI generation and tests.
 */
import { config, safeParse as miniSafeParse } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';

/**
 * zod/mini's safeParse, through which every runtime parse whose messages a caller reads goes (request
 * validation, queue workers). It is this module's own export, not a re-export, so that a bundle that
 * parses keeps this module and the locale set above: with package.json's `"sideEffects": false`,
 * esbuild drops a module none of whose own exports are used, and re-exports alone do not count.
 */
export const safeParse: typeof miniSafeParse = miniSafeParse;
