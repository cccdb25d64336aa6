// Routing: protocol routes (counted in stats) and the /_sim control API (not counted).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BehaviourError, parseBehaviour, type SimBehaviour } from './behaviour.js';
import { pathOf, readJsonBody, sendJson } from './http-io.js';
import { handleChatCompletions } from './openai-chat.js';
import { handleMessages } from './anthropic-messages.js';
import { handleContent, matchContentRoute } from './gemini-content.js';
import { handleGeminiEmbeddings, handleOpenAiEmbeddings } from './embeddings.js';
import { handleImageFile, handleImages, IMAGES_PREFIX } from './openai-images.js';
import { openAiError, sendOpenAiError, unknownRoute } from './openai-errors.js';
import type { SimContext } from './sim-context.js';
import { FILES_PREFIX, handleFile } from './tasks/result-files.js';
import { handleTaskControl, TASKS_PATH } from './tasks/task-control.js';
import { matchTaskRoute } from './tasks/task-routes.js';

type ProtocolHandler = (req: IncomingMessage, res: ServerResponse, sim: SimContext) => Promise<void>;

/**
 * Keyed by "METHOD /path". generateContent (the model in its path) is matched by matchContentRoute;
 * the task protocols have ids in their paths and live in tasks/task-routes.ts.
 */
const PROTOCOL_ROUTES: Readonly<Record<string, ProtocolHandler>> = {
  'POST /v1/chat/completions': handleChatCompletions,
  'POST /chat/completions': handleChatCompletions,
  'POST /v1/messages': handleMessages,
  'POST /v1/embeddings': handleOpenAiEmbeddings,
  'POST /embeddings': handleOpenAiEmbeddings,
  'POST /v1/images/generations': (req, res, sim) => handleImages(req, res, sim, false),
  'POST /v1/images/edits': (req, res, sim) => handleImages(req, res, sim, true),
};

const CONTROL_PREFIX = '/_sim/';
const MODELS_PREFIX = '/_sim/models/';

async function readBehaviour(req: IncomingMessage, res: ServerResponse): Promise<SimBehaviour | undefined> {
  const body = await readJsonBody(req);
  try {
    if (!body.ok) throw new BehaviourError('sim behaviour must be a JSON object');
    return parseBehaviour(body.value);
  } catch (error) {
    if (!(error instanceof BehaviourError)) throw error;
    sendOpenAiError(res, 400, openAiError(error.message, 'invalid_request_error'));
    return undefined;
  }
}

async function handleControl(req: IncomingMessage, res: ServerResponse, path: string, sim: SimContext): Promise<void> {
  if (path === TASKS_PATH || path.startsWith(`${TASKS_PATH}/`)) return handleTaskControl(req, res, path, sim);
  if (path.startsWith(FILES_PREFIX)) return handleFile(req, res, path, sim);
  if (path.startsWith(IMAGES_PREFIX)) return handleImageFile(res, path);
  const route = `${req.method} ${path}`;
  if (route === 'GET /_sim/stats') return sendJson(res, 200, sim.stats.snapshot());
  if (route === 'POST /_sim/reset') {
    sim.stats.reset();
    return void res.writeHead(204).end();
  }
  if (route === 'PUT /_sim/defaults') {
    const behaviour = await readBehaviour(req, res);
    if (behaviour === undefined) return;
    sim.behaviours.setDefaults(behaviour);
    return sendJson(res, 200, behaviour);
  }
  if (req.method === 'PUT' && path.startsWith(MODELS_PREFIX) && path.length > MODELS_PREFIX.length) {
    // Model names may contain slashes ("vendor/model"), so everything after the prefix is the name.
    const name = decodeURIComponent(path.slice(MODELS_PREFIX.length));
    const behaviour = await readBehaviour(req, res);
    if (behaviour === undefined) return;
    sim.behaviours.setModel(name, behaviour);
    return sendJson(res, 200, behaviour);
  }
  unknownRoute(res, req.method, path);
}

function failSafely(res: ServerResponse): void {
  // A handler bug must not crash the process that tests and benchmarks share.
  if (res.destroyed) return; // the client left mid-upload: nothing to answer
  if (res.headersSent) res.destroy();
  else sendOpenAiError(res, 500, openAiError('upstream simulator failed', 'server_error'));
}

function route(req: IncomingMessage, res: ServerResponse, sim: SimContext): void {
  const path = pathOf(req.url);
  const control = path.startsWith(CONTROL_PREFIX);
  const content = req.method === 'POST' && !control ? matchContentRoute(path) : undefined;
  const embed =
    req.method === 'POST' && !control ? /^\/v1beta\/(models\/.+):(embedContent|batchEmbedContents)$/.exec(path) : null;
  const sse = req.url?.includes('alt=sse') === true;
  const handler: ProtocolHandler | undefined = content
    ? (q, s, c) => handleContent(q, s, c, content, sse)
    : embed
      ? (q, s, c) => handleGeminiEmbeddings(q, s, c, decodeURIComponent(embed[1]!), embed[2] === 'batchEmbedContents')
      : (PROTOCOL_ROUTES[`${req.method} ${path}`] ?? (control ? undefined : matchTaskRoute(req.method, path)));
  let handled: Promise<void>;
  if (handler !== undefined) {
    sim.stats.begin(req, res);
    handled = handler(req, res, sim);
  } else if (control) {
    handled = handleControl(req, res, path, sim);
  } else {
    req.resume(); // drain the body so the connection can be reused
    return unknownRoute(res, req.method, path);
  }
  handled.catch(() => failSafely(res));
}

export function createSimServer(sim: SimContext): Server {
  const server = createServer((req, res) => route(req, res, sim));
  // Outlive the client pools of the gateway and the benchmark so idle sockets are not cut under them.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
