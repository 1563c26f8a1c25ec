/** contract §11, comparable outcomes: a model call's tokens and cost, priced here, land in meta.cost_usd and meta.outcome. */
export { chatCompletion, type ChatRequest, type ChatResult } from "./llm.ts";
export { costOf, PRICES, type Price } from "./prices.ts";
