// A scrolling box that says when columns are out of view to the right. It takes keyboard
// focus, so arrow keys scroll it too (a region only a mouse can scroll fails WCAG 2.1.1), and it
// is a region named `label` for screen readers. The hint lies over the box's edge rather than
// under it, so it comes and goes without moving anything.
import { useEffect, useRef, useState, type ReactNode } from "react";

export function ScrollBox({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    // The table inside grows too (a streamed result, a sort): measure it as well.
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    el.addEventListener("scroll", measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", measure);
    };
  }, []);
  return (
    <div className={`scroll-wrap ${more ? "more" : ""}`}>
      <div className={className ? `table-scroll ${className}` : "table-scroll"} ref={box} tabIndex={0} role="region" aria-label={label}>
        {children}
      </div>
      {more && <span className="more-hint" aria-hidden="true">more columns →</span>}
    </div>
  );
}
