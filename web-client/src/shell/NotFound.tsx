// A path the app has no page for (an old or mistyped link).
import { useLocation } from "react-router";
import { AppLink } from "../lib/links";
import { usePageTitle } from "../lib/pageTitle";

export function NotFound() {
  const { pathname } = useLocation();
  usePageTitle("No such page");
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">No such page</h1>
      <p className="empty">
        aware has no page at <code>{pathname}</code>. <AppLink to="/datasets">Go to your datasets</AppLink>
      </p>
    </section>
  );
}
