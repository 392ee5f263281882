// A run's trace spans as a timeline: each span's kind and name, a bar placed where it ran within
// the run, and how long it took.
import { timestampDate, type Span } from "@aware/client";

const millis = (t: Span["startTime"]) => (t ? timestampDate(t).getTime() : 0);

export function Trace({ spans }: { spans: Span[] }) {
  if (spans.length === 0) return null;
  const start = (s: Span) => millis(s.startTime);
  const end = (s: Span) => millis(s.endTime);
  const t0 = Math.min(...spans.map(start));
  const t1 = Math.max(...spans.map(end));
  const width = Math.max(1, t1 - t0);
  return (
    <section aria-labelledby="trace-title">
      <h2 id="trace-title">Trace</h2>
      <ol className="timeline">
        {spans.map((s) => (
          <li key={s.spanId}>
            <span className="span-name">{s.kind} · {s.name}</span>
            <span className="span-track" aria-hidden="true">
              <span className="span-bar" style={{ marginLeft: `${((start(s) - t0) / width) * 100}%`, width: `${Math.max(0.5, ((end(s) - start(s)) / width) * 100)}%` }} />
            </span>
            <span className="muted">{end(s) - start(s)} ms</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
