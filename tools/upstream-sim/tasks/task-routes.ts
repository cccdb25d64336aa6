// The task protocols' routes. Their base URL comes from the gateway's catalog (".../api/v3",
// ".../v1", or none), so any path prefix is accepted in front of the protocol's own paths.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../sim-context.js';
import { createContentTask, deleteContentTask, getContentTask } from './content-tasks.js';
import { createVideo, deleteVideo, downloadVideo, getVideo, listVideos } from './openai-videos.js';

type TaskHandler = (req: IncomingMessage, res: ServerResponse, sim: SimContext, id: string) => Promise<void>;

interface TaskRoute {
  method: string;
  /** Group 1, when present, is the task id. */
  pattern: RegExp;
  handler: TaskHandler;
}

const PREFIX = String.raw`(?:/[^/]+)*?`;
const path = (rest: string): RegExp => new RegExp(`^${PREFIX}${rest}/?$`);
const TASKS = '/contents/generations/tasks';
const ID = '/([^/]+)';

const ROUTES: readonly TaskRoute[] = [
  { method: 'POST', pattern: path(TASKS), handler: createContentTask },
  { method: 'GET', pattern: path(TASKS + ID), handler: getContentTask },
  { method: 'DELETE', pattern: path(TASKS + ID), handler: deleteContentTask },
  { method: 'POST', pattern: path('/videos'), handler: createVideo },
  { method: 'GET', pattern: path('/videos'), handler: listVideos },
  { method: 'GET', pattern: path(`/videos${ID}/content`), handler: downloadVideo },
  { method: 'GET', pattern: path(`/videos${ID}`), handler: getVideo },
  { method: 'DELETE', pattern: path(`/videos${ID}`), handler: deleteVideo },
];

export type BoundHandler = (req: IncomingMessage, res: ServerResponse, sim: SimContext) => Promise<void>;

/** The handler for a task protocol request, with its task id bound; undefined for other paths. */
export function matchTaskRoute(method: string | undefined, path: string): BoundHandler | undefined {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match === null) continue;
    let id: string;
    try {
      id = decodeURIComponent(match[1] ?? '');
    } catch {
      return undefined; // a malformed escape is no task path: answered 404 like any unknown path
    }
    return (req, res, sim) => route.handler(req, res, sim, id);
  }
  return undefined;
}
