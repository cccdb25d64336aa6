/** An expected start-up failure: printed as its one line, never as a stack trace. */
export class ServiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceError';
  }
}
