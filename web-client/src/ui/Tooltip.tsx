// A short hint beside a control, on Radix UI's Tooltip: shown on hover and on keyboard focus
// (a `title` attribute shows on hover only), dismissed with Esc, and read by screen readers as
// the control's description. `TipProvider` wraps the app once.
import type { ReactElement } from "react";
import * as Tooltip from "@radix-ui/react-tooltip";

export function TipProvider({ children }: { children: ReactElement }) {
  return <Tooltip.Provider delayDuration={500}>{children}</Tooltip.Provider>;
}

export function Tip({ text, children }: { text: string; children: ReactElement }) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" sideOffset={4} collisionPadding={8}>
          {text}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}
