import { readFileSync } from 'node:fs';

/**
 * A Lua script kept in `lua/<name>.lua` beside the module that loads it (`import.meta.url`), read
 * once when that module is first imported. The build copies the .lua files next to the compiled
 * modules (scripts/copy-lua.mjs).
 */
export function readLua(moduleUrl: string, name: string): string {
  return readFileSync(new URL(`./lua/${name}.lua`, moduleUrl), 'utf8');
}
