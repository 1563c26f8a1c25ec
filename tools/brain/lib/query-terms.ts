/** The words of a query as FTS5 sees them (letters and digits), lower-cased, each once. */
export function queryTerms(query: string): string[] {
  return [
    ...new Set(
      (
        query
          .normalize("NFKC")
          .toLowerCase()
          .match(/[\p{L}\p{N}]+/gu) ?? []
      ).filter((t) => t.length > 0),
    ),
  ];
}
