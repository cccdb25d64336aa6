// How the simulator behaves per request: defaults ← per-model settings ← directives in the prompt.

export const SIM_FAULTS = ['none', 'error500', 'error429', 'disconnect', 'hang', 'errorMidStream'] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

export interface SimBehaviour {
  /** Delay before response headers (time to first byte), ms. Default 0. */
  latencyMs?: number;
  /** Delay between stream chunks, ms. Default 0. */
  chunkDelayMs?: number;
  /** Completion tokens when the request sets no max_tokens / max_completion_tokens. Default 16. */
  outputTokens?: number;
  /** Default 'none'. */
  fault?: SimFault;
  /** Retry-After header for error429, seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Content chunks written before a disconnect / errorMidStream fault. Default 3. */
  faultAfterChunks?: number;
  /** Put usage on the finish chunk instead of a separate empty-choices chunk, as some providers do. */
  usageInLastChoiceChunk?: boolean;
}

export type ResolvedBehaviour = Required<SimBehaviour>;

export const BUILTIN_BEHAVIOUR: Readonly<ResolvedBehaviour> = Object.freeze({
  latencyMs: 0,
  chunkDelayMs: 0,
  outputTokens: 16,
  fault: 'none',
  retryAfterSeconds: 1,
  faultAfterChunks: 3,
  usageInLastChoiceChunk: false,
});

/** A setting that is not a SimBehaviour field or has a value of the wrong kind. */
export class BehaviourError extends Error {}

type Field = keyof SimBehaviour;
const NUMBER_FIELDS: ReadonlySet<string> = new Set<Field>([
  'latencyMs', 'chunkDelayMs', 'outputTokens', 'retryAfterSeconds', 'faultAfterChunks',
]);
const COUNT_FIELDS: ReadonlySet<string> = new Set<Field>(['outputTokens', 'faultAfterChunks']);

/** Checks one field; accepts directive strings ("50", "true") as well as JSON values. */
function parseField(key: string, raw: unknown): SimBehaviour {
  if (NUMBER_FIELDS.has(key)) {
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new BehaviourError(`sim setting ${key} must be a non-negative number`);
    }
    if (COUNT_FIELDS.has(key) && !Number.isInteger(value)) {
      throw new BehaviourError(`sim setting ${key} must be a whole number`);
    }
    return { [key]: value };
  }
  if (key === 'fault') {
    if (!SIM_FAULTS.includes(raw as SimFault)) {
      throw new BehaviourError(`sim setting fault must be one of ${SIM_FAULTS.join(', ')}`);
    }
    return { fault: raw as SimFault };
  }
  if (key === 'usageInLastChoiceChunk') {
    if (raw !== true && raw !== false && raw !== 'true' && raw !== 'false') {
      throw new BehaviourError('sim setting usageInLastChoiceChunk must be true or false');
    }
    return { usageInLastChoiceChunk: raw === true || raw === 'true' };
  }
  throw new BehaviourError(`unknown sim setting ${key}`);
}

/** Validates a behaviour received as JSON (control API); throws BehaviourError. */
export function parseBehaviour(input: unknown): SimBehaviour {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new BehaviourError('sim behaviour must be a JSON object');
  }
  let behaviour: SimBehaviour = {};
  for (const [key, raw] of Object.entries(input)) {
    if (raw !== undefined) behaviour = { ...behaviour, ...parseField(key, raw) };
  }
  return behaviour;
}

const DIRECTIVE = /\[\[sim:([^\]]*)\]\]/g;

/** Reads every `[[sim:key=value,...]]` in the text; later directives win. Throws BehaviourError. */
export function parseDirectives(text: string): SimBehaviour {
  if (!text.includes('[[sim:')) return {};
  let behaviour: SimBehaviour = {};
  for (const match of text.matchAll(DIRECTIVE)) {
    for (const pair of (match[1] ?? '').split(',')) {
      if (pair.trim() === '') continue;
      const eq = pair.indexOf('=');
      if (eq < 0) throw new BehaviourError(`sim directive "${pair.trim()}" needs key=value`);
      behaviour = { ...behaviour, ...parseField(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()) };
    }
  }
  return behaviour;
}

/** The mutable behaviour configuration of one simulator instance. */
export class BehaviourStore {
  private defaults: ResolvedBehaviour;
  private readonly models = new Map<string, SimBehaviour>();

  constructor(defaults: SimBehaviour = {}, models: Record<string, SimBehaviour> = {}) {
    this.defaults = { ...BUILTIN_BEHAVIOUR, ...parseBehaviour(defaults) };
    for (const [name, behaviour] of Object.entries(models)) this.setModel(name, behaviour);
  }

  /** Replaces the defaults; fields left out fall back to the built-in defaults. */
  setDefaults(behaviour: SimBehaviour): void {
    this.defaults = { ...BUILTIN_BEHAVIOUR, ...parseBehaviour(behaviour) };
  }

  /** Replaces one model's settings; `{}` clears them. */
  setModel(name: string, behaviour: SimBehaviour): void {
    this.models.set(name, parseBehaviour(behaviour));
  }

  resolve(model: string, directives: SimBehaviour): ResolvedBehaviour {
    return { ...this.defaults, ...this.models.get(model), ...directives };
  }
}
