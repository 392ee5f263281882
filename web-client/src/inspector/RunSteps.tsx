// A run's steps on screen: each with when it happened after the run started, problems marked.
import type { Step } from "./steps";

/** The run's steps (`steps` of its event log). */
export function RunSteps({ list }: { list: Step[] }) {
  return (
    <section aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      <ol className="steps">
        {list.map((s, i) => (
          <li key={i} className={`step ${s.kind}${s.bad ? " bad" : ""}`}>
            <span className="at">+{s.at} ms</span> <span className="what">{s.text}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
