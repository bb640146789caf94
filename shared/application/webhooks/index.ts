/** Webhook delivery to merchants, and its ports. */
export * from './webhooks';
export * from './webhook-ports';
