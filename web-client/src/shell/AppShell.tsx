// The app's frame: the menu, the page the URL names, the approvals waiting for the person, and
// the assistant on every page — beside the page on wide screens, a drawer over it on narrow ones
// (the same conversation either way). A new page takes the keyboard focus (not on the first
// load) and starts at its top, so a keyboard continues from there and a screen reader announces
// it, instead of staying on the menu link that opened it.
import { useCallback, useEffect, useRef, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { Approvals } from "../cards/Approvals";
import { AssistantAside } from "../conversation/AssistantAside";
import { AssistantDrawer } from "../conversation/AssistantDrawer";
import { ConversationProvider } from "../conversation/ConversationProvider";
import { NARROW, useMediaQuery } from "../lib/useMediaQuery";
import { Nav } from "./Nav";

export function AppShell() {
  const { pathname } = useLocation();
  const narrow = useMediaQuery(NARROW);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(pathname);
  // A page opened from inside the drawer: the drawer closes first, then the page takes the focus.
  const focusAfterDrawer = useRef(false);

  const focusPage = useCallback(() => {
    main.current?.scrollTo({ top: 0 });
    main.current?.focus({ preventScroll: true });
  }, []);
  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = "";
    if (drawerOpen) {
      focusAfterDrawer.current = true;
      setDrawerOpen(false);
    } else focusPage();
    // Only a new page moves the focus, not the drawer opening or closing: `drawerOpen` is read,
    // not followed.
  }, [pathname]);

  // A run that needs the person brings the assistant into view.
  const attention = useCallback(() => setDrawerOpen(true), []);

  return (
    <ConversationProvider onAttention={attention}>
      <div className="app">
        <Nav />
        {/* Focusable: a page longer than the window scrolls here, also by keyboard. */}
        <main tabIndex={0} ref={main}>
          <Approvals />
          <Outlet />
        </main>
        {narrow ? (
          <AssistantDrawer
            open={drawerOpen}
            onOpenChange={setDrawerOpen}
            onCloseAutoFocus={(e) => {
              if (!focusAfterDrawer.current) return;
              focusAfterDrawer.current = false;
              e.preventDefault();
              focusPage();
            }}
          />
        ) : (
          <AssistantAside />
        )}
      </div>
    </ConversationProvider>
  );
}
