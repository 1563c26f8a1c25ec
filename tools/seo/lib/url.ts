/** URL handling shared by the stages: one normal form, so a page has one key. */

/**
 * Absolute, fragment-free form of `href` against `base`; null when it is not
 * an http(s) URL. `dir/index.html` is `dir/`: static hosts serve one file for
 * both, so they are one page.
 */
export function normalizeUrl(href: string, base: string): string | null {
  let u: URL;
  try {
    u = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  u.hash = "";
  if (u.pathname.endsWith("/index.html")) u.pathname = u.pathname.slice(0, -"index.html".length);
  return u.href;
}

export const sameOrigin = (a: string, b: string): boolean => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/** The site-relative path and query of a URL: what a folder crawl resolves to a file. */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * The site a crawl covers: the start URL's origin and folder. A site published
 * under a path (`https://host/docs/15/`) is that folder and below, not the
 * whole host: links above it are off-site, as links to another host are.
 */
export function siteRootOf(start: string): string {
  const u = new URL(start);
  u.search = "";
  u.hash = "";
  u.pathname = u.pathname.slice(0, u.pathname.lastIndexOf("/") + 1);
  return u.href;
}

/** Whether `url` lies in the site whose root is `root` (from siteRootOf). */
export function withinSite(url: string, root: string): boolean {
  try {
    const u = new URL(url);
    const r = new URL(root);
    return u.origin === r.origin && u.pathname.startsWith(r.pathname);
  } catch {
    return false;
  }
}
