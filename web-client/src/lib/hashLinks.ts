// Links from before the app had path URLs put the page in the hash (`/?thread=th_1#/runs/run_2`).
// People have them bookmarked: they land on the same page in its path form (`/runs/run_2?thread=th_1`).

/** The path form of an old hash link, or undefined when `location` is not one. */
export function pathFromHash(location: Pick<Location, "hash" | "search">): string | undefined {
  if (!location.hash.startsWith("#/")) return undefined;
  const [path, query = ""] = location.hash.slice(1).split("?", 2);
  const params = new URLSearchParams(location.search);
  new URLSearchParams(query).forEach((value, name) => params.set(name, value));
  const search = params.toString();
  return `${path}${search ? `?${search}` : ""}`;
}
