// What a page that failed to render shows, inside the app's frame (the menu and the assistant stay).
import { isRouteErrorResponse, useRouteError } from "react-router";
import { AppLink } from "../lib/links";
import { usePageTitle } from "../lib/pageTitle";

export function RouteError() {
  const error = useRouteError();
  usePageTitle("Something went wrong");
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : String(error);
  return (
    <section aria-labelledby="error-title">
      <h1 id="error-title">Something went wrong</h1>
      <p className="error" role="alert">This page could not be shown: {detail}</p>
      <p><AppLink to="/datasets">Back to datasets</AppLink></p>
    </section>
  );
}
