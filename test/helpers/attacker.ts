/**
 * A listener on 127.0.0.1 standing for an endpoint an attacker named: it
 * keeps every byte any connection sends (headers included), and answers a
 * plain 200 to whatever arrives, so a client that reaches it gets no error
 * that would make it stop short of sending.
 */
import type { TCPSocketListener } from "bun";

export interface Attacker {
  /** A base URL under it, as an agent would give it. */
  readonly url: string;
  /** Every byte received so far, across connections, as latin1 text. */
  received(): string;
  stop(): void;
}

export function attacker(): Attacker {
  let got = "";
  const listener: TCPSocketListener<undefined> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        got += Buffer.from(data).toString("latin1");
        if (got.includes("\r\n\r\n"))
          socket.write(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
          );
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}/v1`,
    received: () => got,
    stop: () => listener.stop(true),
  };
}
