/**
 * USD per million tokens, input and output, per model id as OpenAI-compatible
 * endpoints name them (OpenRouter's `vendor/model` and the bare names). The
 * one place a cost is computed from; a model not listed has no known price.
 */
export interface Price {
  readonly input: number;
  readonly output: number;
}

export const PRICES: Readonly<Record<string, Price>> = {
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "openai/gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o": { input: 2.5, output: 10 },
  "openai/gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "anthropic/claude-3.5-haiku": { input: 0.8, output: 4 },
  "anthropic/claude-sonnet-4": { input: 3, output: 15 },
  "google/gemini-2.0-flash-001": { input: 0.1, output: 0.4 },
  "meta-llama/llama-3.1-8b-instruct": { input: 0.02, output: 0.05 },
};

/** The cost of one call, or null when the model's price is not known. */
export function costOf(model: string, promptTokens: number, completionTokens: number): number | null {
  const p = PRICES[model];
  if (!p) return null;
  return Math.round(((promptTokens * p.input + completionTokens * p.output) / 1e6) * 1e8) / 1e8;
}
