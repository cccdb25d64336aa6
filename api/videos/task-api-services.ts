import type { GatewayServices } from '../../shared/gateway/services.js';

/** The task surfaces use the gateway's services as they are (jobs, storage and link secret included). */
export type TaskApiServices = GatewayServices;
