/**
 * What a list method returns, as in stripe-node: awaiting it gives the first page; iterating it with
 * `for await` gives every item of every page, fetching the next page (by the API's `next_cursor`)
 * only when the items so far have been consumed.
 */
export interface Paged<Item> {
  readonly data: readonly Item[];
  readonly has_more?: boolean;
  readonly next_cursor?: string | null;
}

export class ListPromise<Page, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  private first?: Promise<Page>;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly items: (page: Page) => readonly Item[],
    private readonly nextCursor: (page: Page) => string | undefined,
  ) {}

  /** The first page; fetched once, whether awaited, iterated or both. */
  private firstPage(): Promise<Page> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page = await this.firstPage();
    const seen = new Set<string>();
    for (;;) {
      yield* this.items(page);
      const cursor = this.nextCursor(page);
      if (cursor === undefined) return;
      if (seen.has(cursor)) throw new Error(`The API returned the cursor ${cursor} twice; stopping rather than looping`);
      seen.add(cursor);
      page = await this.fetchPage(cursor);
    }
  }

  /** Every item, up to `limit` (required, so a long history is never loaded by accident). */
  async toArray(options: { limit: number }): Promise<Item[]> {
    const out: Item[] = [];
    if (options.limit <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= options.limit) break;
    }
    return out;
  }
}

/** A cursor-paged list: `{data, has_more, next_cursor}`. */
export function cursorList<Page extends Paged<unknown>>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
): ListPromise<Page, Page['data'][number]> {
  return new ListPromise(
    fetchPage,
    (p) => p.data,
    (p) => (p.has_more && p.next_cursor ? p.next_cursor : undefined),
  );
}

/** A list the API answers in one page (payment methods, a payment's refunds). */
export function singlePage<Page, Item>(fetchPage: () => Promise<Page>, items: (page: Page) => readonly Item[]): ListPromise<Page, Item> {
  return new ListPromise(
    () => fetchPage(),
    items,
    () => undefined,
  );
}
