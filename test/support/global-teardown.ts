export default async function globalTeardown() {
  await Promise.all((globalThis.__ENGINES__ ?? []).map((e) => e.stop()));
}
