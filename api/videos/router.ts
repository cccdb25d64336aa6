import type { GatewayServices } from '../../shared/gateway/services.js';
import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import { serveStoredFile } from '../files/serve-stored-file.js';
import { createImageTask } from '../images/create-image-task.js';
import { cancelTask } from './cancel-task.js';
import { createVideoTask } from './create-video-task.js';
import { getTask, listTasks } from './read-video-tasks.js';

/** Video tasks, image tasks and the stored files they produce. */
export function taskRouter(services: GatewayServices): Router {
  const router = apiRouter('/v1');
  router.post('/videos', createVideoTask(services));
  router.get('/videos', listTasks(services, 'video'));
  router.get('/videos/:id', getTask(services, 'video'));
  router.post('/videos/:id/cancel', cancelTask(services, 'video'));
  router.post('/images/tasks', createImageTask(services));
  router.get('/images/tasks', listTasks(services, 'image'));
  router.get('/images/tasks/:id', getTask(services, 'image'));
  router.post('/images/tasks/:id/cancel', cancelTask(services, 'image'));
  router.get('/files/:token', serveStoredFile(services));
  router.head('/files/:token', serveStoredFile(services));
  return router;
}
