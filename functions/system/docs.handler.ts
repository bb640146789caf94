/** GET /docs: the API reference page, rendered from openapi.json (shipped beside the bundle) once per container. */
import { readAsset } from '../../shared/http/assets';
import { httpHandler } from '../../shared/http/handler';
import { renderDocsBody, renderDocsPage } from '../../shared/http/pages/docs/docs-page';

let body: string | undefined;

export const handler = httpHandler({
  route: 'apiReference',
  handler: async () => renderDocsPage((body ??= renderDocsBody(JSON.parse(readAsset('openapi.json'))))),
});
