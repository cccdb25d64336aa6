import { imageGenerationSchema } from '../../../shared/protocols/images/generation-request.js';
import { videoCreateSchema } from '../../../shared/protocols/videos/create-request.js';
import { taskListQuery } from '../../videos/read-video-tasks.js';
import type { RouteDoc } from '../route-doc.js';

const idempotent = {
  200: 'the task (a replay of the same Idempotency-Key answers the first result)',
  422: 'Idempotency-Key reused with another body',
};

export const taskRoutes: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/videos',
    tag: 'Videos',
    summary: 'Create a paid video task (idempotent with `Idempotency-Key`)',
    auth: 'apiKey',
    body: videoCreateSchema,
    responses: idempotent,
  },
  {
    method: 'get',
    path: '/v1/videos',
    tag: 'Videos',
    summary: "The account's video tasks, newest first",
    auth: 'apiKey',
    query: taskListQuery,
  },
  { method: 'get', path: '/v1/videos/{id}', tag: 'Videos', summary: 'One video task', auth: 'apiKey' },
  {
    method: 'post',
    path: '/v1/videos/{id}/cancel',
    tag: 'Videos',
    summary: 'Cancel a task not finished upstream',
    auth: 'apiKey',
    responses: { 200: 'the cancelled task', 409: 'already finished' },
  },
  {
    method: 'post',
    path: '/v1/images/tasks',
    tag: 'Image tasks',
    summary: 'Create an asynchronous image task, charged per image delivered',
    auth: 'apiKey',
    body: imageGenerationSchema,
    responses: idempotent,
  },
  {
    method: 'get',
    path: '/v1/images/tasks',
    tag: 'Image tasks',
    summary: "The account's image tasks, newest first",
    auth: 'apiKey',
    query: taskListQuery,
  },
  { method: 'get', path: '/v1/images/tasks/{id}', tag: 'Image tasks', summary: 'One image task', auth: 'apiKey' },
  {
    method: 'post',
    path: '/v1/images/tasks/{id}/cancel',
    tag: 'Image tasks',
    summary: 'Cancel an image task not finished upstream',
    auth: 'apiKey',
  },
  {
    method: 'get',
    path: '/v1/files/{token}',
    tag: 'Files',
    summary: 'A stored result behind a short-lived signed link (no API key; `Range` supported)',
    auth: 'none',
  },
  { method: 'head', path: '/v1/files/{token}', tag: 'Files', summary: 'The headers of a stored result', auth: 'none' },
];
