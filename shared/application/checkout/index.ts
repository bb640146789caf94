/** Hosted checkout: sessions, the page's use cases, sandbox completion pages. */
export * from './checkout';
export * from './checkout-page';
export * from './pages';
