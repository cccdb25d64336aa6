import { badRequest } from '../errors.js';

export type Flags = Record<string, string | boolean | undefined>;

/** `--name value`, `--name=value` and bare `--switch`. */
export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) throw badRequest(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    if (eq !== -1) {
      flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else if (i + 1 < args.length && !(args[i + 1] ?? '').startsWith('--')) {
      flags[arg.slice(2)] = args[++i];
    } else {
      flags[arg.slice(2)] = true;
    }
  }
  return flags;
}

export function flag(f: Flags, name: string): string | undefined {
  const v = f[name];
  if (v === true) throw badRequest(`--${name} needs a value`, name);
  return v === false ? undefined : v;
}

export function requiredFlag(f: Flags, name: string): string {
  const v = flag(f, name);
  if (!v) throw badRequest(`--${name} is required`, name);
  return v;
}

/** A whole number; anything else (1.5, -x, 1e3) is refused naming the flag. */
export function integerFlag(f: Flags, name: string): number | undefined {
  const v = flag(f, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw badRequest(`--${name} must be a whole number`, name);
  return Number(v);
}

export function listFlag(f: Flags, name: string): string[] | undefined {
  const v = flag(f, name);
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/** A limit: a whole number from 0 to 10^9, or `none` to remove it. */
export function limitFlag(f: Flags, name: string): number | null | undefined {
  if (flag(f, name) === 'none') return null;
  const n = integerFlag(f, name);
  if (n !== undefined && (n < 0 || n > 1_000_000_000))
    throw badRequest(`--${name} must be from 0 to 1000000000, or none`, name);
  return n;
}
