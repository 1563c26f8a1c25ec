/** contract §2 §4 §5, the envelope, errors that teach, exit codes and streams: one answer on stdout, diagnostics on stderr. */
export { emitEnvelope, modeOf, type Mode, type Sink } from "./emit.ts";
export {
  failure,
  roundUsd,
  success,
  type Envelope,
  type Meta,
  type Outcome,
  type OutcomeUnit,
  type Pagination,
} from "./envelope.ts";
export {
  asKitError,
  ERROR_CODES,
  EXIT,
  exitCodeOf,
  fromSystemError,
  isKitError,
  KitError,
  REDISPATCH_CODES,
  toErrorObject,
  type ErrorCode,
  type ErrorObject,
  type ExitClass,
} from "./errors.ts";
export { createLogger, type Logger } from "./log.ts";
