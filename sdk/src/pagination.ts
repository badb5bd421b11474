/** Reads the `page` of the rel="next" target of an RFC 8288 Link header; undefined when there is no such link. */
export function nextPageFromLink(header: string | null): number | null | undefined {
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const rels = /;\s*rel="?([^";]+)"?/.exec(match[2] ?? "")?.[1]?.split(/\s+/) ?? [];
    if (!rels.includes("next")) continue;
    const page = Number(new URL(match[1] ?? "", "http://link.invalid").searchParams.get("page"));
    return Number.isInteger(page) && page >= 0 ? page : undefined;
  }
  return null;
}

/**
 * The page after `page`: from the Link header when the server sends one, else from X-Total-Count, else
 * "a full page means there may be more".
 */
export function nextPage(headers: Headers, page: number, size: number, count: number): number | null {
  const fromLink = nextPageFromLink(headers.get("link"));
  if (fromLink !== undefined) return fromLink !== null && fromLink > page ? fromLink : null;
  const total = totalCount(headers);
  if (total !== null) return (page + 1) * size < total ? page + 1 : null;
  return count > 0 && count >= size ? page + 1 : null;
}

export function totalCount(headers: Headers): number | null {
  const raw = headers.get("x-total-count");
  const total = raw === null ? Number.NaN : Number(raw);
  return Number.isInteger(total) && total >= 0 ? total : null;
}
