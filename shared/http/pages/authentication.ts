/** Sends the shopper to the provider's 3-D Secure: a redirect (GET), or a form posted on its own (POST). */
import type { ShopperRedirect } from '../../application/providers';
import { esc, htmlPage, redirect } from './html';

export function authenticationRedirect(action: ShopperRedirect) {
  if (action.method === 'GET') return redirect(action.url);
  const fields = Object.entries(action.data)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return htmlPage({
    title: 'Card authentication',
    formsRedirectOffSite: true,
    body: `<form id="f" method="post" action="${esc(action.url)}">${fields}<button type="submit">Continue to your bank</button></form>`,
    script: "document.getElementById('f').submit();",
  });
}
