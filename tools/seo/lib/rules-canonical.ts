/** The canonical rules: Lighthouse's `canonical` audit, and seo's own off-site and broken canonicals beside it. */
import type { ExtractData } from "./artifacts.ts";
import type { ExtractedPage } from "./page-schema.ts";
import { siteRootOf, withinSite } from "./url.ts";
import type { Emit } from "./rules-common.ts";
import type { SiteIndex } from "./rules-common.ts";

/** Lighthouse's canonical judgement (its order: invalid, relative, conflicting, then two common mistakes), and seo's own two beside it. */
export function canonicalRules(p: ExtractedPage, site: ExtractData, index: SiteIndex, emit: Emit): void {
  if (p.canonical_raw.length === 0) return emit("canonical-missing", p.url, "no <link rel=canonical>");
  const raws = p.canonical_raw.map((c) => c.trim());
  const resolved = raws.map((r) => (URL.canParse(r, p.final_url) ? new URL(r, p.final_url).href : null));
  const invalid = raws.find((_, i) => resolved[i] === null);
  if (invalid !== undefined)
    return emit("canonical", p.url, `canonical '${invalid}' is not a valid URL`, { canonical: invalid }, "invalid");
  const relative = raws.find((r) => !URL.canParse(r));
  if (relative !== undefined)
    return emit(
      "canonical",
      p.url,
      `canonical '${relative}' is relative; use an absolute URL`,
      { canonical: relative, absolute: resolved[raws.indexOf(relative)] },
      "relative",
    );
  const unique = [...new Set(resolved as string[])];
  if (unique.length > 1)
    return emit("canonical", p.url, `${unique.length} different canonical URLs`, { canonicals: unique }, "conflict");
  const canonical = new URL(unique[0]!);
  const page = new URL(p.final_url);
  const alternates = new Set(
    p.hreflang.flatMap((h) =>
      URL.canParse(h.raw.trim(), p.final_url) ? [new URL(h.raw.trim(), p.final_url).href] : [],
    ),
  );
  if (alternates.has(page.href) && alternates.has(canonical.href) && page.href !== canonical.href)
    emit(
      "canonical",
      p.url,
      `canonical points at another hreflang alternate, ${canonical.href}`,
      { canonical: canonical.href },
      "hreflang",
    );
  else if (canonical.origin === page.origin && canonical.pathname === "/" && page.pathname !== "/")
    emit(
      "canonical",
      p.url,
      "canonical points at the host's root (the home page)",
      { canonical: canonical.href },
      "root",
    );
  // A file: (or any non-web) canonical tells engines the page lives where none can fetch it: worse than off-site.
  if (canonical.protocol !== "http:" && canonical.protocol !== "https:")
    return emit("canonical-not-http", p.url, `canonical is not an http(s) URL: ${canonical.href}`, {
      canonical: canonical.href,
    });
  if (!withinSite(canonical.href, siteRootOf(site.start_url)))
    emit("canonical-offsite", p.url, `canonical points off-site, to ${canonical.href}`, { canonical: canonical.href });
  const status = index.status.get(canonical.href);
  if (status !== undefined && !(status >= 200 && status < 300))
    emit("canonical-broken", p.url, `canonical ${canonical.href} answers ${status}`, {
      canonical: canonical.href,
      status,
    });
}
