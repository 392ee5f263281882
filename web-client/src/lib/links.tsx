// Links inside the app. The page is in the path (`/datasets/ds_…`); the query string carries what
// holds across pages — the conversation on screen (`?thread=`) and how this tab reaches the server
// (`?server=`, `?token=`, `?hb=`) — so every link and navigation keeps those, and a link copied
// or opened in a new tab lands on the same page with the same conversation.
import { forwardRef } from "react";
import { Link, NavLink, useLocation, useNavigate, type LinkProps, type NavLinkProps, type NavigateOptions } from "react-router";

/** The query parameters that follow the person from page to page. */
export const STICKY = ["thread", "server", "token", "hb"] as const;

/** `search` with only the sticky parameters ("" when none). */
export function stickySearch(search: string): string {
  const from = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const name of STICKY) {
    const value = from.get(name);
    if (value !== null) kept.set(name, value);
  }
  const text = kept.toString();
  return text ? `?${text}` : "";
}

/** An app path ("/runs/run_…") as a location that keeps the sticky parameters. */
export function useAppTo(): (path: string) => { pathname: string; search: string } {
  const { search } = useLocation();
  return (path) => ({ pathname: path, search: stickySearch(search) });
}

/** Goes to an app path, keeping the sticky parameters. */
export function useOpen(): (path: string, options?: NavigateOptions) => void {
  const navigate = useNavigate();
  const to = useAppTo();
  return (path, options) => navigate(to(path), options);
}

type AppLinkProps = Omit<LinkProps, "to"> & { to: string };

/** A link to an app path ("/datasets/ds_…"). */
export const AppLink = forwardRef<HTMLAnchorElement, AppLinkProps>(function AppLink({ to, ...props }, ref) {
  const appTo = useAppTo();
  return <Link ref={ref} to={appTo(to)} {...props} />;
});

type AppNavLinkProps = Omit<NavLinkProps, "to"> & { to: string };

/** A menu link: `aria-current="page"` while its page (or one under it) is shown. */
export function AppNavLink({ to, ...props }: AppNavLinkProps) {
  const appTo = useAppTo();
  return <NavLink to={appTo(to)} {...props} />;
}

/** An app path written the old way (`#/runs/run_…`, from before the app had path URLs) or as a
 *  path; undefined for anything else (another site, a protocol-relative `//host`). */
export function appPath(href: string): string | undefined {
  if (href.startsWith("#/")) return href.slice(1);
  if (href.startsWith("/") && !href.startsWith("//")) return href;
  return undefined;
}
