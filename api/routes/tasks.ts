import { imageGenerationSchema } from '../../shared/protocols/images/generation-request.js';
import { videoCreateSchema } from '../../shared/protocols/videos/create-request.js';
import { createImageTask } from '../images/create-image-task.js';
import { cancelTask } from '../videos/cancel-task.js';
import { createVideoTask } from '../videos/create-video-task.js';
import { getTask, listTasks, taskListQuery } from '../videos/read-video-tasks.js';
import type { RouteGroup } from './route.js';
import {
  IMAGE_TASK_CANCELLED_RESPONSE,
  IMAGE_TASK_CREATE_EXAMPLES,
  IMAGE_TASK_RESPONSE,
  IMAGE_TASKS_RESPONSE,
  VIDEO_CANCELLED_RESPONSE,
  VIDEO_CREATE_EXAMPLES,
  VIDEO_RESPONSE,
  VIDEOS_RESPONSE,
} from './examples/tasks.js';
import { TASK_RESPONSES } from '../videos/responses.js';

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
      response: TASK_RESPONSES.video,
      examples: VIDEO_CREATE_EXAMPLES,
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
      response: TASK_RESPONSES.videos,
      examples: { response: VIDEOS_RESPONSE },
      query: taskListQuery,
      handler: (services) => listTasks(services, 'video'),
    },
    {
      method: 'get',
      path: '/v1/videos/:id',
      tag: 'Videos',
      summary: 'One video task',
      auth: 'apiKey',
      response: TASK_RESPONSES.video,
      examples: { response: VIDEO_RESPONSE },
      handler: (services) => getTask(services, 'video'),
    },
    {
      method: 'post',
      path: '/v1/videos/:id/cancel',
      tag: 'Videos',
      summary: 'Cancel a task not finished upstream',
      auth: 'apiKey',
      response: TASK_RESPONSES.video,
      examples: { response: VIDEO_CANCELLED_RESPONSE },
      responses: { 200: 'the cancelled task', 409: 'already finished' },
      handler: (services) => cancelTask(services, 'video'),
    },
    {
      method: 'post',
      path: '/v1/images/tasks',
      tag: 'Image tasks',
      summary: 'Create an asynchronous image task, charged per image delivered',
      auth: 'apiKey',
      response: TASK_RESPONSES.image,
      examples: IMAGE_TASK_CREATE_EXAMPLES,
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
      response: TASK_RESPONSES.images,
      examples: { response: IMAGE_TASKS_RESPONSE },
      query: taskListQuery,
      handler: (services) => listTasks(services, 'image'),
    },
    {
      method: 'get',
      path: '/v1/images/tasks/:id',
      tag: 'Image tasks',
      summary: 'One image task',
      auth: 'apiKey',
      response: TASK_RESPONSES.image,
      examples: { response: IMAGE_TASK_RESPONSE },
      handler: (services) => getTask(services, 'image'),
    },
    {
      method: 'post',
      path: '/v1/images/tasks/:id/cancel',
      tag: 'Image tasks',
      summary: 'Cancel an image task not finished upstream',
      auth: 'apiKey',
      response: TASK_RESPONSES.image,
      examples: { response: IMAGE_TASK_CANCELLED_RESPONSE },
      handler: (services) => cancelTask(services, 'image'),
    },
  ],
};
