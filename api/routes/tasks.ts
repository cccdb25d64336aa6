import { imageGenerationSchema } from '../../shared/protocols/images/generation-request.js';
import { videoCreateSchema } from '../../shared/protocols/videos/create-request.js';
import { createImageTask } from '../images/create-image-task.js';
import { cancelTask } from '../videos/cancel-task.js';
import { createVideoTask } from '../videos/create-video-task.js';
import { getTask, listTasks, taskListQuery } from '../videos/read-video-tasks.js';
import type { RouteGroup } from './route.js';

const idempotent = {
  200: 'the task (a replay of the same Idempotency-Key answers the first result)',
  422: 'Idempotency-Key reused with another body',
};

/** Video tasks and image tasks (the stored files they produce: api/routes/files.ts). */
export const taskRoutes: RouteGroup = {
  name: 'tasks',
  prefix: '/v1',
  routes: [
    {
      method: 'post',
      path: '/v1/videos',
      tag: 'Videos',
      summary: 'Create a paid video task (idempotent with `Idempotency-Key`)',
      auth: 'apiKey',
      body: videoCreateSchema,
      responses: idempotent,
      handler: createVideoTask,
    },
    {
      method: 'get',
      path: '/v1/videos',
      tag: 'Videos',
      summary: "The account's video tasks, newest first",
      auth: 'apiKey',
      query: taskListQuery,
      handler: (services) => listTasks(services, 'video'),
    },
    {
      method: 'get',
      path: '/v1/videos/:id',
      tag: 'Videos',
      summary: 'One video task',
      auth: 'apiKey',
      handler: (services) => getTask(services, 'video'),
    },
    {
      method: 'post',
      path: '/v1/videos/:id/cancel',
      tag: 'Videos',
      summary: 'Cancel a task not finished upstream',
      auth: 'apiKey',
      responses: { 200: 'the cancelled task', 409: 'already finished' },
      handler: (services) => cancelTask(services, 'video'),
    },
    {
      method: 'post',
      path: '/v1/images/tasks',
      tag: 'Image tasks',
      summary: 'Create an asynchronous image task, charged per image delivered',
      auth: 'apiKey',
      body: imageGenerationSchema,
      responses: idempotent,
      handler: createImageTask,
    },
    {
      method: 'get',
      path: '/v1/images/tasks',
      tag: 'Image tasks',
      summary: "The account's image tasks, newest first",
      auth: 'apiKey',
      query: taskListQuery,
      handler: (services) => listTasks(services, 'image'),
    },
    {
      method: 'get',
      path: '/v1/images/tasks/:id',
      tag: 'Image tasks',
      summary: 'One image task',
      auth: 'apiKey',
      handler: (services) => getTask(services, 'image'),
    },
    {
      method: 'post',
      path: '/v1/images/tasks/:id/cancel',
      tag: 'Image tasks',
      summary: 'Cancel an image task not finished upstream',
      auth: 'apiKey',
      handler: (services) => cancelTask(services, 'image'),
    },
  ],
};
