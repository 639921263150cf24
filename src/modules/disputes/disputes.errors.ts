import { AppError, Conflict } from "../../http/errors.ts";

/** Accepting asks the dispute to be open for a response (`needs_response`); the reference's 409. */
export class DisputeNotOpenError extends Conflict {
  constructor(id: string) {
    super("DisputeNotOpenError", `Dispute ${id} is not open for a response.`);
  }
}

/**
 * The processor refused to close the dispute (or none is configured): nothing was recorded. Ours
 * (the reference lists no such answer): a 502, since the fault is upstream, never a 500.
 */
export class DisputeCloseFailed extends AppError {
  constructor(message: string) {
    super(502, "DisputeCloseFailed", message);
  }
}
