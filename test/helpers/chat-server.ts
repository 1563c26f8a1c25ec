/** A real OpenAI-compatible chat-completions server on 127.0.0.1; each test scripts its answers. */
import type { Server } from "bun";

export interface Answer {
  status?: number;
  /** The assistant's message (status 200). */
  content?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  delayMs?: number;
  headers?: Record<string, string>;
  /** The body of an answer that is not 200, as sent (default: an OpenAI-style error object). */
  body?: string;
}

export interface ChatServer {
  url: string;
  /** Request bodies and authorization headers, in order. */
  requests: { body: any; authorization: string | null }[];
  stop(): void;
}

/** Answers in order; the last one repeats. */
export function chatServer(answers: Answer[]): ChatServer {
  const requests: ChatServer["requests"] = [];
  let i = 0;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      requests.push({ body: await req.json(), authorization: req.headers.get("authorization") });
      const a = answers[Math.min(i++, answers.length - 1)]!;
      if (a.delayMs) await Bun.sleep(a.delayMs);
      if (a.status && a.status !== 200)
        return new Response(a.body ?? JSON.stringify({ error: { message: `status ${a.status}` } }), {
          status: a.status,
          headers: a.headers,
        });
      return Response.json({
        id: "chatcmpl-test",
        object: "chat.completion",
        model: requests.at(-1)!.body.model,
        choices: [{ index: 0, message: { role: "assistant", content: a.content ?? "{}" }, finish_reason: "stop" }],
        ...(a.usage ? { usage: a.usage } : {}),
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) };
}
