// The main menu: each page a link, the one shown marked `aria-current="page"` (also on the pages
// under it: a dataset under Datasets, a run under Runs). Admin is for admins only.
import { AppNavLink } from "../lib/links";
import { useRole } from "../lib/queries/capabilities";

export function Nav() {
  const role = useRole();
  return (
    <nav aria-label="Main">
      <span className="brand">aware</span>
      <AppNavLink to="/datasets">Datasets</AppNavLink>
      <AppNavLink to="/sql">SQL</AppNavLink>
      <AppNavLink to="/runs">Runs</AppNavLink>
      <AppNavLink to="/memory">Memory</AppNavLink>
      <AppNavLink to="/settings">Settings</AppNavLink>
      {role === "admin" && <AppNavLink to="/admin">Admin</AppNavLink>}
    </nav>
  );
}
