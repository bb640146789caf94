/** GET /docs: the API reference page, rendered from openapi.json once per cold start. */
import { httpHandler } from '../../shared/http/handler';
import { renderDocsBody, renderDocsPage } from '../../shared/http/pages/docs/docs-page';
import document from '../../openapi.json';

let body: string | undefined;

export const handler = httpHandler({
  route: 'apiReference',
  handler: async () => renderDocsPage((body ??= renderDocsBody(document))),
});
