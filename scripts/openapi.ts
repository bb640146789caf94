/**
 * npm run openapi: writes openapi.json (the published contract) and the error-code reference of docs/errors.md
 * from the manifest, the zod schemas and the error table, and the merchant SDK's types generated from
 * openapi.json (sdk/src/openapi.generated.ts). `--check` fails instead when any is stale (the test suite
 * runs the same comparison).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERRORS_DOC, renderArtefacts } from '../shared/contract/artefacts';
import { renderSdkTypes, SDK_TYPES_FILE } from './sdk-types';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let stale = 0;
const artefacts = renderArtefacts(readFileSync(join(root, ERRORS_DOC), 'utf8'));
const openapi = artefacts.find((a) => a.file === 'openapi.json');
const validation = await new Validator().validate(JSON.parse(openapi?.content ?? '{}') as Parameters<Validator['validate']>[0]);
if (!validation.valid) {
  console.error('The generated document is not valid OpenAPI 3.1:', JSON.stringify(validation.errors, null, 2));
  process.exit(1);
}
artefacts.push({ file: SDK_TYPES_FILE, content: await renderSdkTypes(openapi?.content ?? '{}') });
for (const { file, content } of artefacts) {
  const path = join(root, file);
  const current = (() => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  })();
  if (current === content) continue;
  if (check) {
    console.error(`${file} is stale: run npm run openapi`);
    stale++;
  } else {
    writeFileSync(path, content);
    console.log(`wrote ${file} (${Buffer.byteLength(content)} bytes)`);
  }
}
process.exit(stale ? 1 : 0);
