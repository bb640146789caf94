#!/usr/bin/env node
/**
 * Our npm registry serves only the platform binaries of the machines we run on
 * (linux x64); the other platforms' optional packages (@swc/core-darwin-arm64,
 * @unrs/resolver-binding-win32-x64-msvc, ...) answer 404. `npm install` then
 * leaves them out of package-lock.json and `npm ci` refuses the lock as out of
 * sync. This records each missing optional platform package in the lock with
 * its os/cpu/libc, so `npm ci` skips it as foreign instead of failing.
 * Run after any `npm install` that changes the lock: node scripts/lock-foreign-platforms.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'wasm32', 'universal'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os && cpu !== 'wasm32') return null;
  const entry = {};
  if (os) entry.os = [os];
  if (cpu && cpu !== 'universal') entry.cpu = [cpu];
  if (os === 'darwin' && cpu === 'universal') entry.cpu = ['arm64', 'x64'];
  if (parts.includes('musl') || parts.includes('musleabihf')) entry.libc = ['musl'];
  else if (os === 'linux' && parts.some((p) => p.startsWith('gnu'))) entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
    if (packages[nested] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[`node_modules/${dep}`] = {
      version: spec.replace(/^[\^~=]/, ''),
      ...platform,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: recorded ${added} foreign-platform optional package(s).`);
