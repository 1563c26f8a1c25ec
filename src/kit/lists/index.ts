/** contract §6, bounded output: every list has a default and a ceiling, and pages with opaque cursors bound to their query. */
export { KIT_BOUNDS, KIT_DEFAULT_LIMIT, KIT_MAX_LIMIT, pageRequestOf, parseLimit, type ListBounds } from "./bounds.ts";
export {
  type CutPage,
  decodeCursor,
  paginate,
  queryFingerprint,
  type Page,
  type PageRequest,
} from "./paginate.ts";
