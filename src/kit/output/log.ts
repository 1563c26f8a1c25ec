/**
 * Diagnostics go to stderr, always (contract §5), through the redactor.
 * `consola/core` rather than consola's default entry: the default touches
 * process.stdout at import time, which costs start-up on every call. And
 * consola is loaded on the first diagnostic, not before: most runs log none.
 */
import type { ConsolaInstance, LogObject } from "consola/core";

const COLOURS: Partial<Record<string, string>> = {
  error: "31",
  fatal: "31",
  warn: "33",
  success: "32",
  info: "36",
  debug: "90",
  trace: "90",
};

export interface LogSink {
  readonly write: (line: string) => void;
  /** Colour only on a terminal, and never with NO_COLOR set. */
  readonly colour: boolean;
  /** consola levels: 0 errors only … 3 info (default) … 5 trace. */
  readonly level: number;
}

export type Logger = ConsolaInstance;

export function createLogger(sink: LogSink): Logger {
  let real: Logger | undefined;
  const logger = (): Logger => (real ??= consolaFor(sink));
  return new Proxy({} as Logger, {
    get(_target, key) {
      const value = Reflect.get(logger(), key);
      return typeof value === "function" ? value.bind(real) : value;
    },
  });
}

function consolaFor(sink: LogSink): Logger {
  const { createConsola } = require("consola/core") as typeof import("consola/core");
  return createConsola({
    level: sink.level,
    reporters: [
      {
        log(o: LogObject) {
          const text = o.args
            .map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : JSON.stringify(a)))
            .join(" ");
          const label = o.type === "log" ? "" : `${o.type}: `;
          const colour = COLOURS[o.type];
          sink.write(`${sink.colour && colour && label ? `\u001b[${colour}m${label}\u001b[0m` : label}${text}\n`);
        },
      },
    ],
  });
}
