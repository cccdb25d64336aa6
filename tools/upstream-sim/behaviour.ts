// How the simulator behaves per request: defaults ← per-model settings ← directives in the prompt.

/** `stallBeforeEnd`: a stream sends all its content, then nothing more (no finish, usage or end marker) until the client hangs up; a whole answer is unaffected. */
export const SIM_FAULTS = [
  'none',
  'error500',
  'error429',
  'disconnect',
  'hang',
  'errorMidStream',
  'stallBeforeEnd',
] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

/** Faults of the asynchronous task protocols; a task's settings are fixed when it is created. */
export const SIM_TASK_FAULTS = ['none', 'fail', 'submit500', 'submit429', 'hang', 'pollError500'] as const;
export type SimTaskFault = (typeof SIM_TASK_FAULTS)[number];

export interface SimBehaviour {
  /** Delay before response headers (time to first byte), ms; also delays task creates. Default 0. */
  latencyMs?: number;
  /** Delay between stream chunks, ms. Default 0. */
  chunkDelayMs?: number;
  /** The answer's natural length, in completion tokens (per choice); a cap only cuts it shorter. Default 16. */
  outputTokens?: number;
  /**
   * Chat completions: false makes max_tokens set the answer's length exactly (a model that always
   * talks until its cap) instead of only cutting the natural answer (outputTokens) shorter, as real
   * models do. Default true.
   */
  naturalLength?: boolean;
  /**
   * Chat completions: an older OpenAI-compatible server that reads only `max_tokens`, so
   * `max_completion_tokens` does not cap its answer (and sending both is not refused). Default false.
   */
  ignoresMaxCompletionTokens?: boolean;
  /**
   * Text answers read as a sentence naming the model and echoing the prompt (the demo's models)
   * instead of `tok1 tok2 …`; one word per token, so every count stays the same. Default false.
   */
  prose?: boolean;
  /** Chat completions: the answer ends with `finish_reason: content_filter`, as a provider's filter stops one. Default false. */
  contentFilter?: boolean;
  /** Prompt tokens reported as served from the prompt cache (at most the prompt). Default 0. */
  cachedTokens?: number;
  /** Default 'none'. */
  fault?: SimFault;
  /** Retry-After header for error429 and submit429, seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Content chunks written before a disconnect / errorMidStream fault. Default 3. */
  faultAfterChunks?: number;
  /** Put usage on the finish chunk instead of a separate empty-choices chunk, as some providers do. */
  usageInLastChoiceChunk?: boolean;
  /** Task time from running to finished, ms. Default 200. */
  taskRunMs?: number;
  /** Task time spent queued before running, ms. Default 50. */
  taskQueuedMs?: number;
  /**
   * Default 'none'. 'fail': the task ends failed; 'submit500' / 'submit429': the create is refused and
   * no task exists; 'hang': the task is created but the create is never answered; 'pollError500':
   * every pollErrorEvery-th GET of the task answers 500.
   */
  taskFault?: SimTaskFault;
  /** With taskFault pollError500: which GETs of a task fail (every Nth, counted per task). Default 2. */
  pollErrorEvery?: number;
  /** Size of each result file (video, or each image), bytes. Default 65536. */
  resultBytes?: number;
  /** How long result URLs (and OpenAI video content) stay downloadable after the task succeeds, ms. Default 1 h. */
  resultUrlTtlMs?: number;
  /** Distinct progress values while running: progress moves in 100/progressSteps increments. Default 10. */
  progressSteps?: number;
}

export type ResolvedBehaviour = Required<SimBehaviour>;

export const BUILTIN_BEHAVIOUR: Readonly<ResolvedBehaviour> = Object.freeze({
  latencyMs: 0,
  chunkDelayMs: 0,
  outputTokens: 16,
  cachedTokens: 0,
  naturalLength: true,
  ignoresMaxCompletionTokens: false,
  prose: false,
  contentFilter: false,
  fault: 'none',
  retryAfterSeconds: 1,
  faultAfterChunks: 3,
  usageInLastChoiceChunk: false,
  taskRunMs: 200,
  taskQueuedMs: 50,
  taskFault: 'none',
  pollErrorEvery: 2,
  resultBytes: 64 * 1024,
  resultUrlTtlMs: 60 * 60 * 1000,
  progressSteps: 10,
});

/** A setting that is not a SimBehaviour field or has a value of the wrong kind. */
export class BehaviourError extends Error {}

type Field = keyof SimBehaviour;
/** Numeric fields with their lower bound and whether they count things (whole numbers). */
const NUMBER_FIELDS: Partial<Record<Field, { min: number; whole: boolean }>> = {
  latencyMs: { min: 0, whole: false },
  chunkDelayMs: { min: 0, whole: false },
  outputTokens: { min: 0, whole: true },
  cachedTokens: { min: 0, whole: true },
  retryAfterSeconds: { min: 0, whole: false },
  faultAfterChunks: { min: 0, whole: true },
  taskRunMs: { min: 0, whole: false },
  taskQueuedMs: { min: 0, whole: false },
  pollErrorEvery: { min: 1, whole: true },
  resultBytes: { min: 0, whole: true },
  resultUrlTtlMs: { min: 0, whole: false },
  progressSteps: { min: 1, whole: true },
};
const ENUM_FIELDS: Partial<Record<Field, readonly string[]>> = { fault: SIM_FAULTS, taskFault: SIM_TASK_FAULTS };

/** Checks one field; accepts directive strings ("50", "true") as well as JSON values. */
function parseField(key: string, raw: unknown): SimBehaviour {
  const number = Object.hasOwn(NUMBER_FIELDS, key) ? NUMBER_FIELDS[key as Field] : undefined;
  if (number !== undefined) {
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new BehaviourError(`sim setting ${key} must be a non-negative number`);
    }
    if (number.whole && !Number.isInteger(value)) throw new BehaviourError(`sim setting ${key} must be a whole number`);
    if (value < number.min) throw new BehaviourError(`sim setting ${key} must be at least ${number.min}`);
    return { [key]: value };
  }
  const allowed = Object.hasOwn(ENUM_FIELDS, key) ? ENUM_FIELDS[key as Field] : undefined;
  if (allowed !== undefined) {
    if (typeof raw !== 'string' || !allowed.includes(raw)) {
      throw new BehaviourError(`sim setting ${key} must be one of ${allowed.join(', ')}`);
    }
    return { [key]: raw };
  }
  if (
    key === 'usageInLastChoiceChunk' ||
    key === 'naturalLength' ||
    key === 'ignoresMaxCompletionTokens' ||
    key === 'prose' ||
    key === 'contentFilter'
  ) {
    if (raw !== true && raw !== false && raw !== 'true' && raw !== 'false') {
      throw new BehaviourError(`sim setting ${key} must be true or false`);
    }
    return { [key]: raw === true || raw === 'true' };
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
